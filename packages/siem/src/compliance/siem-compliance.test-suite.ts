import { type CaseInput, EnrichedIndicatorSchema, ValidationError } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { SiemAuthenticationError } from '../connector/siem-authentication-error.js';
import { SIEMConnector, type SiemConnectorRuntime } from '../connector/siem-connector.js';
import { SiemError } from '../connector/siem-error.js';
import { SiemTimeoutError } from '../connector/siem-timeout-error.js';
import { SiemUnreachableError } from '../connector/siem-unreachable-error.js';
import { SiemUnsupportedError } from '../connector/siem-unsupported-error.js';

/** An alert as a SIEM holds it, reduced to what every platform keeps. */
interface ReceivedAlert {
  title: string;
  severity: string;
  /** The indicator values. */
  indicators: string[];
}

/** A case as a SIEM holds it. */
interface ReceivedCase {
  title: string;
  /** The indicator values. */
  indicators: string[];
}

/** A SIEM (real or emulated) and the means to look inside it, made fresh for each test. */
export interface SiemHarness {
  /** Options of a connector the SIEM accepts (timeouts and retries are the suite's). */
  options: SiemConnectorOptions;
  /** Every secret in `options` and `badCredentials`: none may appear in an error. */
  secrets: string[];
  /** Option overrides the SIEM refuses as credentials (every credential it checks). */
  badCredentials: Partial<SiemConnectorOptions>;
  /** Option overrides pointing at an address where nothing listens. */
  down: Partial<SiemConnectorOptions>;
  /** The alerts the SIEM holds now. */
  alerts(): Promise<ReceivedAlert[]>;
  /** The case the SIEM holds under `id`. */
  caseById(id: string): Promise<ReceivedCase | undefined>;
  /** Makes the SIEM's next `count` requests fail: with its own "busy" answer, or no answer at all. */
  failNext(count: number, fault: 'busy' | 'hang'): void;
  /** How many requests a `hang` has held since the harness was made, answered or not. */
  hung(): number;
  /** Waits until what was written is searchable (a refresh), when the SIEM needs it. */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;

/** What a platform declares it does not do, so the suite checks the documented refusal instead. */
export interface SiemComplianceOptions {
  /**
   * `'unsupported'`: `createCase` rejects with `SiemUnsupportedError` (a beta platform without cases), at once, with
   * nothing sent. Default `'supported'`.
   */
  cases?: 'supported' | 'unsupported';
}

/**
 * Registers the behaviour every `SIEMConnector` platform shares, under the caller's `describe`: alerts delivered (in
 * both documented forms, and in batches), case ids returned, enrichment computed from what was sent, bad
 * credentials refused as `authentication failed: <reason>` without retrying, an unreachable SIEM retried and then
 * reported `unreachable`, timeouts, and no secret in any error message.
 *
 * @example
 * ```ts
 * describe('siem_a on the Splunk emulator', () => {
 *   runSiemComplianceSuite(async () => splunkHarness());
 * });
 * ```
 */
export function runSiemComplianceSuite(
  createHarness: () => Promise<SiemHarness>,
  suiteOptions: SiemComplianceOptions = {},
): void {
  let harness: SiemHarness;
  const connectors: SIEMConnector[] = [];
  const errors: unknown[] = [];

  const connect = (
    overrides: Partial<SiemConnectorOptions> = {},
    runtime: SiemConnectorRuntime = {},
  ): SIEMConnector => {
    const connector = new SIEMConnector(
      {
        ...harness.options,
        timeout: 10_000,
        retries: 2,
        retryDelay: 1,
        ...overrides,
      } as SiemConnectorOptions,
      runtime,
    );
    connectors.push(connector);
    return connector;
  };
  const failure = async (promise: Promise<unknown>): Promise<SiemError> => {
    const error = await promise.then(
      () => {
        throw new Error('expected the call to fail');
      },
      (e: unknown) => e,
    );
    errors.push(error);
    expect(SiemError.isInstance(error), `not a SiemError: ${String(error)}`).toBe(true);
    return error as SiemError;
  };

  beforeEach(async () => {
    harness = await createHarness();
    errors.length = 0;
  });
  afterEach(async () => {
    // Every failure seen in the test, whatever it was, holds no secret.
    for (const error of errors) {
      const text = `${String((error as Error)?.message)} ${JSON.stringify(error)} ${String((error as Error)?.stack)}`;
      for (const secret of harness.secrets) expect(text).not.toContain(secret);
    }
    await Promise.all(connectors.splice(0).map((c) => c.stop()));
    await harness.close();
  });

  it('delivers an alert in the documented form', async () => {
    const siem = connect();
    await siem.sendAlert({
      title: 'Malicious IP contacted',
      severity: 'high',
      description: 'Outbound connection to a known C2 server',
      indicators: [{ type: 'ip', value: '198.51.100.23', confidence: 90 }],
      timestamp: new Date().toISOString(),
    });
    await harness.settle?.();
    expect(await harness.alerts()).toContainEqual({
      title: 'Malicious IP contacted',
      severity: 'high',
      indicators: ['198.51.100.23'],
    });
  });

  it('delivers an alert of the webhook-handler form ({title, indicator, correlation})', async () => {
    const siem = connect();
    await siem.sendAlert({
      title: 'High confidence threat',
      indicator: 'evil-login.com',
      correlation: { confidence: 92, sources: ['feed_otx'] },
    });
    await harness.settle?.();
    const alert = (await harness.alerts()).find((a) => a.title === 'High confidence threat');
    expect(alert?.indicators).toEqual(['evil-login.com']);
    expect(alert?.severity).toMatch(/^(high|critical)$/);
  });

  it('delivers many alerts in batches, every one of them', async () => {
    const siem = connect({ batchSize: 7 });
    const alerts = Array.from({ length: 30 }, (_, i) => ({
      title: `batch alert ${i}`,
      severity: 'medium',
      indicators: [{ type: 'domain' as const, value: `host${i}.batch-test.com` }],
    }));
    const receipt = await siem.sendAlerts(alerts);
    expect(receipt).toMatchObject({ accepted: 30, batches: 5 });
    await harness.settle?.();
    const titles = (await harness.alerts()).map((a) => a.title).filter((t) => t.startsWith('batch alert'));
    expect(titles.sort()).toEqual(alerts.map((a) => a.title).sort());
  });

  it('refuses an invalid alert before sending anything, saying what is wrong', async () => {
    const siem = connect();
    await expect(siem.sendAlert({ title: '', severity: 'high' })).rejects.toThrow(ValidationError);
    await expect(
      siem.sendAlert({ title: 'x', severity: 'high', indicators: [{ type: 'ip', value: 'not-an-ip' }] }),
    ).rejects.toThrow(/indicators/);
    await harness.settle?.();
    expect(await harness.alerts()).toEqual([]);
  });

  const phishingCase: CaseInput = {
    title: 'Phishing campaign',
    description: 'Credential harvesting against finance',
    priority: 'critical',
    assignee: 'analyst@example.com',
    indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
  };

  if (suiteOptions.cases === 'unsupported') {
    it('createCase rejects at once as not supported, sending nothing', async () => {
      const error = await failure(connect().createCase(phishingCase));
      expect(SiemUnsupportedError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/not supported/);
      expect(error.attempts).toBe(1);
      await harness.settle?.();
      expect(await harness.alerts()).toEqual([]);
    });
  }

  it.skipIf(suiteOptions.cases === 'unsupported')(
    'creates a case and returns the identifier the SIEM holds it under',
    async () => {
      const siem = connect();
      const id = await siem.createCase(phishingCase);
      expect(typeof id).toBe('string');
      expect(id.length).toBeGreaterThan(0);
      await harness.settle?.();
      expect(await harness.caseById(id)).toEqual({ title: 'Phishing campaign', indicators: ['login-example.com'] });
    },
  );

  it('enriches an indicator from what the SIEM holds: first and last seen, event count, highest risk score', async () => {
    const siem = connect();
    const now = Date.now();
    const first = new Date(now - 3 * HOUR).toISOString();
    const last = new Date(now - HOUR).toISOString();
    const indicator = '203.0.113.77';
    await siem.sendAlert({
      title: 'first sighting',
      severity: 'medium',
      riskScore: 4,
      indicators: [{ type: 'ip', value: indicator }],
      timestamp: first,
    });
    await siem.sendAlert({
      title: 'second sighting',
      severity: 'high',
      riskScore: 7.5,
      indicators: [{ type: 'ip', value: indicator }],
      timestamp: last,
    });
    await siem.sendAlert({
      title: 'unrelated',
      severity: 'high',
      riskScore: 9,
      indicators: [{ type: 'ip', value: '203.0.113.78' }],
    });
    await harness.settle?.();
    const enriched = await siem.enrichIndicator({ type: 'ip', value: indicator });
    expect(EnrichedIndicatorSchema.safeParse(enriched).success).toBe(true);
    expect(enriched).toEqual({
      indicator,
      firstSeen: first,
      lastSeen: last,
      associatedEvents: 2,
      riskScore: 7.5,
    });
  });

  it('enriches an indicator the SIEM never saw as zero events', async () => {
    const siem = connect();
    const enriched = await siem.enrichIndicator({ type: 'domain', value: 'never-seen-threatlib.com' });
    expect(EnrichedIndicatorSchema.safeParse(enriched).success).toBe(true);
    expect(enriched).toMatchObject({ indicator: 'never-seen-threatlib.com', associatedEvents: 0, riskScore: 0 });
  });

  it('testConnection resolves when the SIEM answers and accepts the credentials', async () => {
    const report = await connect().testConnection();
    expect(report.platform).toBe(harness.options.platform);
  });

  it('bad credentials: testConnection rejects with "authentication failed: <the SIEM’s reason>", not retried', async () => {
    const siem = connect(harness.badCredentials);
    const error = await failure(siem.testConnection());
    expect(SiemAuthenticationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^authentication failed: \S.+/);
    expect(error.attempts).toBe(1);
    const sent = await failure(siem.sendAlert({ title: 'x', severity: 'low' }));
    expect(sent.message).toMatch(/^authentication failed: /);
    expect(sent.attempts).toBe(1);
    expect(sent.isRetryable).toBe(false);
  });

  it('SIEM down: retries, then rejects saying it is unreachable', async () => {
    const siem = connect({ ...harness.down, retries: 2 });
    const tested = await failure(siem.testConnection());
    expect(SiemUnreachableError.isInstance(tested)).toBe(true);
    expect(tested.message).toMatch(/unreachable/);
    expect(tested.attempts).toBe(3);
    const sent = await failure(siem.sendAlert({ title: 'x', severity: 'low' }));
    expect(sent.message).toMatch(/unreachable/);
    expect(sent.message).not.toMatch(/authentication/);
  });

  it('SIEM busy: retries and delivers once it answers', async () => {
    const siem = connect({ retries: 2 });
    harness.failNext(2, 'busy');
    await siem.sendAlert({ title: 'after the storm', severity: 'low' });
    await harness.settle?.();
    expect((await harness.alerts()).filter((a) => a.title === 'after the storm')).toHaveLength(1);
  });

  it('SIEM busy for longer than the retries: rejects with its own reason, retryable', async () => {
    const siem = connect({ retries: 1 });
    harness.failNext(5, 'busy');
    const error = await failure(siem.sendAlert({ title: 'lost', severity: 'low' }));
    expect(error.attempts).toBe(2);
    expect(error.isRetryable).toBe(true);
  });

  it('an attempt that takes longer than timeout fails as timed out, and is retried', async () => {
    // An attempt's 300 ms timer fires when the test says, once the SIEM holds the request; every other timer (the
    // wait before a retry) runs for real. With a real 300 ms timeout, a retry that the real Elasticsearch took longer
    // to answer under load timed out too.
    const attempts: Array<(() => void) | undefined> = [];
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout: (callback, ms) => (ms === 300 ? attempts.push(callback) : setTimeout(callback, ms)),
      clearTimeout(handle) {
        if (typeof handle === 'number') attempts[handle - 1] = undefined;
        else clearTimeout(handle as NodeJS.Timeout);
      },
    };
    // Once the SIEM holds the `count`th hung request, the one attempt timer left is that request's.
    const timeOutHeldAttempt = async (count: number) => {
      await vi.waitFor(() => expect(harness.hung()).toBe(count), { timeout: 20_000 });
      const pending = attempts.filter((callback) => callback !== undefined);
      expect(pending).toHaveLength(1);
      pending[0]?.();
    };

    harness.failNext(1, 'hang');
    const first = failure(
      connect({ timeout: 300, retries: 0 }, { clock }).sendAlert({ title: 'slow', severity: 'low' }),
    );
    await timeOutHeldAttempt(1);
    const error = await first;
    expect(SiemTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/within 300 ms/);

    harness.failNext(1, 'hang');
    const second = connect({ timeout: 300, retries: 1 }, { clock }).sendAlert({
      title: 'slow then fine',
      severity: 'low',
    });
    await timeOutHeldAttempt(2);
    await second;
    // Three attempts in all: the first call's, and the second's two (the retry's timer never fired).
    expect(attempts).toHaveLength(3);
    await harness.settle?.();
    expect((await harness.alerts()).map((a) => a.title)).toContain('slow then fine');
  });
}
