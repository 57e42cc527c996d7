import { type AlertInput, ValidationError } from '@threatlib/core';
import * as integration from '@threatlib/core/integration';
import { normaliseAlert } from '@threatlib/core/integration';
import { ManualClock } from '@threatlib/core/testing';
import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SplunkPlatform } from '../platforms/splunk/splunk-platform.js';
import type { BatchOutcome } from './batch-outcome.js';
import type { SiemConnectorOptions } from './connector-options.js';
import { SIEMConnector, type SiemConnectorRuntime } from './siem-connector.js';
import { SiemError } from './siem-error.js';
import { SiemTimeoutError } from './siem-timeout-error.js';

// Counts core's validation of alerts, which the connector calls through core's integration entry.
vi.mock('@threatlib/core/integration', async (importOriginal) => {
  const original = await importOriginal<typeof import('@threatlib/core/integration')>();
  return { ...original, normaliseAlert: vi.fn(original.normaliseAlert) };
});
const validations = vi.mocked(integration.normaliseAlert);

let emulator: RunningSiemEmulator | undefined;
const connectors: SIEMConnector[] = [];
beforeEach(async () => {
  emulator = await startSiemEmulator();
});
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.stop()));
  await emulator?.close();
  emulator = undefined;
});

function splunk(overrides: Partial<SiemConnectorOptions> = {}, runtime: SiemConnectorRuntime = {}): SIEMConnector {
  if (!emulator) throw new Error('no emulator');
  const made = new SIEMConnector(
    {
      platform: 'siem_a',
      host: emulator.host,
      port: emulator.port,
      credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
      hec: { token: SPLUNK_DEFAULTS.hecToken, port: emulator.port },
      tls: { ca: TEST_CA },
      retryDelay: 1,
      ...overrides,
    } as SiemConnectorOptions,
    runtime,
  );
  connectors.push(made);
  return made;
}

const input = (i: number): AlertInput => ({
  title: `alert ${i}`,
  severity: 'high',
  indicators: [{ type: 'domain', value: `c2-${i}.example.com`, confidence: 80 }],
  timestamp: '2026-03-01T11:59:00.000Z',
});

const indexedTitles = () =>
  (emulator?.splunk.events ?? []).map((e) => (e as { event: { title: string } }).event.title).sort();

describe('sendAlerts validates each alert once', () => {
  it("sends the records core made as they are, and validates a user's own alerts", async () => {
    const records = [0, 1, 2].map((i) => normaliseAlert(input(i), new Date()));
    const handMade = [3, 4].map(input);
    validations.mockClear();

    const receipt = await splunk().sendAlerts([...records, ...handMade]);

    expect(receipt).toMatchObject({ accepted: 5, batches: 1 });
    expect(validations).toHaveBeenCalledTimes(2);
    expect(validations.mock.calls.map(([alert]) => alert)).toEqual(handMade);
    expect(indexedTitles()).toEqual(['alert 0', 'alert 1', 'alert 2', 'alert 3', 'alert 4']);
    // The records went out as core made them: their ids, not new ones.
    const ids = (emulator?.splunk.events ?? []).map((e) => (e as { event: { id: string } }).event.id);
    expect(ids.slice(0, 3)).toEqual(records.map((r) => r.id));
  });

  it('validates a copy of a record (it may have been changed), and refuses it when it is no longer valid', async () => {
    const record = normaliseAlert(input(0), new Date());
    const changed = { ...structuredClone(record), indicators: [{ type: 'domain', value: 'not a domain' }] };
    validations.mockClear();

    const error = await splunk()
      .sendAlerts([record, changed as never])
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(
      /^alerts\[1\]: Invalid alert: indicators\[0\]\.value: contains whitespace/,
    );
    expect(validations).toHaveBeenCalledTimes(1);
    expect(emulator?.splunk.events).toEqual([]);
  });

  it('sendAlert sends a record as it is, and validates anything else', async () => {
    const siem = splunk();
    const record = normaliseAlert(input(0), new Date());
    validations.mockClear();
    await siem.sendAlert(record);
    expect(validations).not.toHaveBeenCalled();
    await siem.sendAlert(input(1));
    expect(validations).toHaveBeenCalledTimes(1);
    expect(indexedTitles()).toEqual(['alert 0', 'alert 1']);
  });
});

describe('sendAlerts weighs its batches on what it sends', () => {
  it("keeps every HEC request within the platform's 800 KB, HEC's event envelope counted", async () => {
    // Each alert is about 1,700 bytes of JSON, so the batches are bounded by bytes (500 would be 850 KB), and each
    // event adds `time`, `source`, `sourcetype` and `kind`: weighing the alerts alone let requests pass 800 KB.
    const alerts = Array.from({ length: 1_000 }, (_, i) => ({ ...input(i), description: 'd'.repeat(1_500) }));
    const receipt = await splunk().sendAlerts(alerts);
    const bodies = (emulator?.requests ?? [])
      .filter((r) => r.path === '/services/collector/event' && r.status === 200)
      .map((r) => r.raw.length);
    expect(receipt).toMatchObject({ accepted: 1_000, batches: bodies.length });
    expect(Math.max(...bodies)).toBeLessThanOrEqual(800_000);
    // As full as the limit lets them be: no batch could have taken the next alert.
    expect(Math.min(...bodies.slice(0, -1))).toBeGreaterThan(800_000 - 2_000);
    expect(emulator?.splunk.events).toHaveLength(1_000);
  });
});

describe('sendAlerts keeps several batches in flight', () => {
  /** The titles the SIEM indexed, and those of the alerts in the batches `outcomes` reports `status`. */
  const titlesOf = (alerts: readonly AlertInput[], outcomes: readonly BatchOutcome[], status: BatchOutcome['status']) =>
    outcomes
      .filter((o) => o.status === status)
      .flatMap((o) => alerts.slice(o.first, o.last + 1).map((a) => (a as { title: string }).title))
      .sort();

  it('delivers the other batches while one hangs; the error names each batch, and the SIEM holds exactly those delivered', async () => {
    const clock = new ManualClock(Date.now());
    const alerts = Array.from({ length: 60 }, (_, i) => input(i));
    emulator?.failNext(1, 'hang', 'splunk');
    const siem = splunk({ batchSize: 10, retries: 0, timeout: 5_000 }, { clock });

    const sending = siem.sendAlerts(alerts).catch((e: unknown) => e);
    // One request hangs; the five other batches go meanwhile (one after the other, they would wait behind it).
    await vi.waitFor(() => expect(emulator?.splunk.acceptedRequests).toBe(5), { timeout: 10_000 });
    await clock.advance(5_000);
    const error = (await sending) as SiemError;

    expect(SiemTimeoutError.isInstance(error)).toBe(true);
    const outcomes = error.batches ?? [];
    expect(outcomes.map((o) => [o.batch, o.first, o.last])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => [n, (n - 1) * 10, n * 10 - 1]),
    );
    const failed = outcomes.filter((o) => o.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toMatch(/within 5000 ms/);
    expect(outcomes.filter((o) => o.status === 'delivered').map((o) => o.accepted)).toEqual([10, 10, 10, 10, 10]);
    expect(error.message).toMatch(
      new RegExp(`\\(sendAlerts: 1 of 6 batches failed \\(${failed[0]?.batch}\\); 5 delivered \\([-0-9, ]+\\)\\)$`),
    );
    expect(indexedTitles()).toEqual(titlesOf(alerts, outcomes, 'delivered'));
  });

  it('starts no batch once one has failed for good: those are reported not sent, and nothing of them is in the SIEM', async () => {
    const alerts = Array.from({ length: 100 }, (_, i) => input(i));
    emulator?.failNext(1, 'busy', 'splunk');
    const error = (await splunk({ batchSize: 10, retries: 0 })
      .sendAlerts(alerts)
      .catch((e: unknown) => e)) as SiemError;

    expect(SiemError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/Server is busy/);
    const outcomes = error.batches ?? [];
    // Four went at once, one of them refused; no other batch started after.
    const status = (batch: number) => outcomes[batch - 1]?.status;
    expect([1, 2, 3, 4].map(status).sort()).toEqual(['delivered', 'delivered', 'delivered', 'failed']);
    expect([5, 6, 7, 8, 9, 10].map(status)).toEqual(Array(6).fill('not sent'));
    expect(error.message).toMatch(
      /\(sendAlerts: 1 of 10 batches failed \([1-4]\); 3 delivered \([-0-9, ]+\); 6 not sent \(5-10\)\)$/,
    );
    expect(indexedTitles()).toEqual(titlesOf(alerts, outcomes, 'delivered'));
  });

  it('batchConcurrency: 1 sends one batch after the other and stops at the first that fails', async () => {
    const clock = new ManualClock(Date.now());
    const alerts = Array.from({ length: 30 }, (_, i) => input(i));
    emulator?.failNext(1, 'hang', 'splunk');
    const sending = splunk({ batchSize: 10, retries: 0, timeout: 5_000, batchConcurrency: 1 }, { clock })
      .sendAlerts(alerts)
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(emulator?.requests).toHaveLength(1), { timeout: 10_000 });
    await clock.advance(5_000);
    const error = (await sending) as SiemError;
    expect(error.batches?.map((o) => o.status)).toEqual(['failed', 'not sent', 'not sent']);
    expect(error.message).toMatch(/\(sendAlerts: 1 of 3 batches failed \(1\); 2 not sent \(2-3\)\)$/);
    expect(emulator?.splunk.events).toEqual([]);
  });

  it('makes each batch as it sends it: the first request is out before the rest is serialised', async () => {
    const encode = vi.spyOn(SplunkPlatform.prototype, 'encodeAlerts');
    const clock = new ManualClock(Date.now());
    const alerts = Array.from({ length: 100 }, (_, i) => input(i));
    emulator?.failNext(1, 'hang', 'splunk');
    const sending = splunk({ batchSize: 10, retries: 0, timeout: 5_000, batchConcurrency: 1 }, { clock })
      .sendAlerts(alerts)
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(emulator?.requests).toHaveLength(1), { timeout: 10_000 });
    // The first batch, and the alert that did not fit in it (with the rest of its batch's worth).
    expect(encode.mock.calls.flatMap(([batch]) => batch)).toHaveLength(20);
    await clock.advance(5_000);
    const error = (await sending) as SiemError;
    // The batches never started are still named, with their alerts.
    expect(error.batches?.map((o) => [o.status, o.first, o.last])).toEqual([
      ['failed', 0, 9],
      ...Array.from({ length: 9 }, (_, i) => ['not sent', (i + 1) * 10, (i + 1) * 10 + 9]),
    ]);
    encode.mockRestore();
  });

  it('resolves with every alert accepted when every batch is delivered', async () => {
    const alerts = Array.from({ length: 95 }, (_, i) => input(i));
    expect(await splunk({ batchSize: 10 }).sendAlerts(alerts)).toEqual({
      platform: 'siem_a',
      accepted: 95,
      batches: 10,
    });
    expect(indexedTitles()).toEqual(alerts.map((a) => (a as { title: string }).title).sort());
  });
});
