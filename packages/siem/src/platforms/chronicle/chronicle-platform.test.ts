import { ConfigurationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { CHRONICLE_DEFAULTS, CHRONICLE_PERMISSIONS, CHRONICLE_TOKEN_PATH, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SiemConnectorOptions } from '../../connector/connector-options.js';
import { SiemAuthenticationError } from '../../connector/siem-authentication-error.js';
import { SIEMConnector, type SiemConnectorRuntime } from '../../connector/siem-connector.js';
import { SiemError } from '../../connector/siem-error.js';
import { SiemUnsupportedError } from '../../connector/siem-unsupported-error.js';
import { chronicleHarness } from '../../test-support/chronicle-harness.js';

type Harness = Awaited<ReturnType<typeof chronicleHarness>>;
let harness: Harness;
const connectors: SIEMConnector[] = [];

function connect(overrides: Partial<SiemConnectorOptions> = {}, runtime: SiemConnectorRuntime = {}): SIEMConnector {
  const connector = new SIEMConnector(
    { ...harness.options, retryDelay: 1, ...overrides } as SiemConnectorOptions,
    runtime,
  );
  connectors.push(connector);
  return connector;
}

async function failure(promise: Promise<unknown>): Promise<SiemError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(SiemError.isInstance(error), String(error)).toBe(true);
  const text = `${(error as Error).message} ${JSON.stringify(error)}`;
  for (const secret of harness.secrets) expect(text).not.toContain(secret);
  return error as SiemError;
}

const tokenRequests = () => harness.emulator.requests.filter((r) => r.path === CHRONICLE_TOKEN_PATH).length;

beforeEach(async () => {
  harness = await chronicleHarness();
});
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.stop()));
  await harness.close();
});

describe('siem_e: the documented SIEMConnector example', () => {
  it('runs as written: testConnection, sendAlert, createCase (refused: beta), enrichIndicator', async () => {
    const { emulator, key } = harness;
    const siem = new SIEMConnector({
      platform: 'siem_e',
      host: emulator.host,
      port: emulator.port,
      credentials: { token: JSON.stringify(key) },
      timeout: 30000,
      retries: 3,
      project: CHRONICLE_DEFAULTS.project,
      location: CHRONICLE_DEFAULTS.location,
      instance: CHRONICLE_DEFAULTS.instance,
      tls: { ca: TEST_CA },
    });
    connectors.push(siem);
    const report = await siem.testConnection();
    expect(report).toEqual({
      platform: 'siem_e',
      checks: {
        credentials: `token obtained for the service account ${key.client_email}`,
        instance: `${CHRONICLE_DEFAULTS.instance} in us answers`,
      },
    });
    const receipt = await siem.sendAlert({
      title: 'Malicious IP',
      severity: 'high',
      description: 'C2 traffic',
      indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 90 }],
      timestamp: new Date().toISOString(),
    });
    expect(receipt).toEqual({ platform: 'siem_e', accepted: 1 });
    const refused = await failure(
      siem.createCase({
        title: 'Phishing campaign',
        description: 'x',
        priority: 'critical',
        assignee: 'analyst@example.com',
        indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
      }),
    );
    expect(SiemUnsupportedError.isInstance(refused)).toBe(true);
    expect(refused.message).toMatch(/^Google SecOps createCase: creating cases is not supported by the beta connector/);
    const enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' });
    expect(enriched).toMatchObject({ indicator: '198.51.100.7', associatedEvents: 1, riskScore: 8 });
    // One token for all of it, as a bearer token on every API request.
    expect(tokenRequests()).toBe(1);
    const api = emulator.requests.filter((r) => r.vendor === 'chronicle' && r.path !== CHRONICLE_TOKEN_PATH);
    expect(api.map((r) => r.headers.authorization)).toEqual(
      api.map(() => `Bearer ${emulator.chronicle.oauth.issued[0]}`),
    );
  });
});

describe('siem_e: alerts as UDM events through events:import', () => {
  it('sends each alert as a GENERIC_EVENT: time, product, indicators as nouns, the verdict as a security result', async () => {
    const siem = connect();
    await siem.sendAlert({
      id: 'alert-1',
      title: 'Phishing kit',
      severity: 'critical',
      description: 'Kit hosted on a lookalike domain',
      riskScore: 9.5,
      source: 'threatlib',
      indicators: [
        { type: 'domain', value: 'login-example.com', confidence: 80, source: 'feed_urls' },
        { type: 'url', value: 'https://login-example.com/kit', confidence: 95 },
        { type: 'sha256', value: 'a'.repeat(64) },
        { type: 'email', value: 'billing@login-example.com' },
      ],
      timestamp: '2026-03-04T05:06:07.890Z',
    });
    const request = harness.emulator.requests.find((r) => r.path.endsWith('/events:import'));
    expect(request?.path).toBe(`/v1alpha/${harness.emulator.chronicle.instanceName}/events:import`);
    expect(JSON.parse(request?.body ?? '{}')).toHaveProperty('inlineSource.events.0.udm');
    expect(harness.emulator.chronicle.events[0]?.udm).toEqual({
      metadata: {
        eventTimestamp: '2026-03-04T05:06:07.890Z',
        eventType: 'GENERIC_EVENT',
        vendorName: 'threatlib',
        productName: 'threatlib',
        productVersion: expect.any(String),
        productEventType: 'threatlib:alert',
        productLogId: 'alert-1',
        description: 'Phishing kit',
      },
      target: { hostname: 'login-example.com', domain: { name: 'login-example.com' } },
      about: [
        { url: 'https://login-example.com/kit' },
        { file: { sha256: 'a'.repeat(64) } },
        { user: { emailAddresses: ['billing@login-example.com'] } },
      ],
      securityResult: [
        {
          summary: 'Phishing kit',
          description: 'Kit hosted on a lookalike domain',
          severity: 'CRITICAL',
          riskScore: 9.5,
          confidenceScore: 95,
          alertState: 'ALERTING',
          detectionFields: [
            { key: 'threatlib_alert_id', value: 'alert-1' },
            { key: 'threatlib_source', value: 'threatlib' },
            { key: 'flagged_by', value: 'feed_urls' },
          ],
        },
      ],
    });
  });

  it('batches many alerts at most 500 a request, each request all-or-nothing', async () => {
    const siem = connect();
    const alerts = Array.from({ length: 1201 }, (_, i) => ({ title: `a${i}`, severity: 'low' }));
    expect(await siem.sendAlerts(alerts)).toEqual({ platform: 'siem_e', accepted: 1201, batches: 3 });
    const perRequest = new Map<number, number>();
    for (const e of harness.emulator.chronicle.events) perRequest.set(e.request, (perRequest.get(e.request) ?? 0) + 1);
    expect([...perRequest.values()]).toEqual([500, 500, 201]);
  });

  it('a request Chronicle refuses (400 INVALID_ARGUMENT) fails at once with Google’s message, not retried', async () => {
    await harness.close();
    harness = await chronicleHarness({ chronicle: { maxRequestBytes: 2_000 } });
    const siem = connect({ retries: 3 });
    const error = await failure(siem.sendAlert({ title: 'large', description: 'x'.repeat(3_000), severity: 'low' }));
    expect(error.message).toBe(
      'Google SecOps sendAlert: HTTP 400: events:import: INVALID_ARGUMENT: Request payload size exceeds the limit: 2000 bytes.',
    );
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false, attempts: 1, siemCode: 'INVALID_ARGUMENT' });
  });

  it('a spent quota (429) is retried after the Retry-After Chronicle asked for, not before', async () => {
    const clock = new ManualClock(Date.now());
    const siem = connect({ retries: 2, retryDelay: 10 }, { clock, random: () => 0 });
    await siem.testConnection(); // the token, so that the clock only waits for Retry-After below
    harness.emulator.chronicle.exhaustQuota(1, 3);
    const sent = siem.sendAlert({ title: 'after the quota', severity: 'low' });
    const imports = () => harness.emulator.requests.filter((r) => r.path.endsWith('/events:import')).length;
    while (imports() < 1) await clock.advance(0);
    await clock.advance(2_999);
    expect(imports()).toBe(1);
    await clock.advance(1);
    while (imports() < 2) await clock.advance(0);
    await expect(sent).resolves.toEqual({ platform: 'siem_e', accepted: 1 });
    expect(harness.emulator.requests.filter((r) => r.path.endsWith('/events:import')).map((r) => r.status)).toEqual([
      429, 200,
    ]);
  });
});

describe('siem_e: the service account’s token', () => {
  it('is kept until shortly before it expires by the connector’s clock, then renewed', async () => {
    const clock = new ManualClock(Date.now());
    const siem = connect({}, { clock });
    await siem.sendAlert({ title: 'one', severity: 'low' });
    await siem.sendAlert({ title: 'two', severity: 'low' });
    expect(tokenRequests()).toBe(1);
    await clock.advance(54 * 60_000); // 54 of its 60 minutes: still good
    await siem.sendAlert({ title: 'three', severity: 'low' });
    expect(tokenRequests()).toBe(1);
    await clock.advance(2 * 60_000); // within five minutes of expiry: renewed
    await siem.sendAlert({ title: 'four', severity: 'low' });
    expect(tokenRequests()).toBe(2);
    expect(harness.emulator.chronicle.events).toHaveLength(4);
  });

  it('is obtained once for calls made together', async () => {
    const siem = connect();
    await Promise.all(Array.from({ length: 5 }, (_, i) => siem.sendAlert({ title: `c${i}`, severity: 'low' })));
    expect(tokenRequests()).toBe(1);
  });

  it('refused by the API (revoked) is replaced once within the same call', async () => {
    const siem = connect({ retries: 0 });
    await siem.sendAlert({ title: 'before', severity: 'low' });
    harness.emulator.chronicle.oauth.reset(); // the emulator forgets every token it issued
    await siem.sendAlert({ title: 'after', severity: 'low' });
    expect(tokenRequests()).toBe(2);
    expect(harness.emulator.chronicle.events.map((e) => e.udm.metadata.description)).toEqual(['before', 'after']);
  });

  it('a key Google refuses: authentication failed, with the token endpoint’s own reason, never retried', async () => {
    const siem = connect(harness.badCredentials);
    const error = await failure(siem.testConnection());
    expect(SiemAuthenticationError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      `authentication failed: the token endpoint ${harness.emulator.url} refused service account ${harness.key.client_email}: invalid_grant: Invalid JWT Signature.`,
    );
    expect(error).toMatchObject({ siemCode: 'invalid_grant', statusCode: 400, attempts: 1 });
    harness.emulator.chronicle.oauth.revokeKey(harness.key.private_key_id);
    expect((await failure(connect().sendAlert({ title: 'x', severity: 'low' }))).message).toMatch(
      /^authentication failed: .*invalid_grant/,
    );
  });

  it('an account without the permission: authentication failed, quoting Google’s PERMISSION_DENIED', async () => {
    harness.emulator.chronicle.deny(harness.key.client_email, CHRONICLE_PERMISSIONS.import);
    const error = await failure(connect().sendAlert({ title: 'x', severity: 'low' }));
    expect(error.message).toBe(
      `authentication failed: PERMISSION_DENIED: Permission 'chronicle.events.import' denied on resource '//chronicle.googleapis.com/${harness.emulator.chronicle.instanceName}' (or it may not exist). (events:import, as the service account ${harness.key.client_email})`,
    );
    expect(error).toMatchObject({ statusCode: 403, siemCode: 'IAM_PERMISSION_DENIED', attempts: 1 });
  });

  it('a token endpoint that does not answer: unreachable, naming the token endpoint', async () => {
    const siem = connect({ ...harness.down, port: harness.emulator.port, retries: 1 });
    const error = await failure(siem.testConnection());
    expect(error.message).toMatch(
      new RegExp(`^Google SecOps at 127\\.0\\.0\\.1:${harness.down.port} unreachable: connection refused`),
    );
    expect(error.attempts).toBe(2);
  });
});

describe('siem_e with {token: <an OAuth access token>}', () => {
  it('uses it as the bearer token as it is', async () => {
    harness.emulator.chronicle.oauth.addAccessToken('ya29.a0-given-access-token', {});
    const siem = connect({ credentials: { token: 'ya29.a0-given-access-token' } });
    expect((await siem.testConnection()).checks.credentials).toBe('using the given access token');
    await siem.sendAlert({ title: 'with a token', severity: 'low' });
    expect(tokenRequests()).toBe(0);
  });

  it('an expired or unknown one: authentication failed with Google’s reason and how to let the connector renew it', async () => {
    const siem = connect({ credentials: { token: 'ya29.a0-expired-token-value' } });
    const error = await failure(siem.sendAlert({ title: 'x', severity: 'low' }));
    expect(error.message).toMatch(
      /^authentication failed: UNAUTHENTICATED: Request had invalid authentication credentials\..*an access token lasts about an hour/,
    );
    expect(error.message).not.toContain('ya29.a0-expired-token-value');
    expect(error.attempts).toBe(1);
  });
});

describe('siem_e: enrichment by UDM search', () => {
  it('counts every event naming the indicator, from any product, and takes the risk of one without a score from its severity', async () => {
    const { emulator } = harness;
    const now = Date.now();
    emulator.chronicle.index({
      metadata: { eventTimestamp: new Date(now - 5 * 86_400_000).toISOString(), eventType: 'NETWORK_CONNECTION' },
      principal: { ip: ['10.0.0.5'] },
      target: { ip: ['203.0.113.9'] },
      securityResult: [{ severity: 'HIGH' }],
    } as never);
    emulator.chronicle.index({
      metadata: { eventTimestamp: new Date(now - 200 * 86_400_000).toISOString(), eventType: 'NETWORK_CONNECTION' },
      target: { ip: ['203.0.113.9'] },
    } as never);
    const siem = connect();
    await siem.sendAlert({
      title: 'seen',
      severity: 'low',
      riskScore: 2,
      indicators: [{ type: 'ip', value: '203.0.113.9' }],
    });
    const enriched = await siem.enrichIndicator({ type: 'ip', value: '203.0.113.9' });
    expect(enriched).toMatchObject({
      indicator: '203.0.113.9',
      associatedEvents: 2, // the one 200 days ago is outside the 90-day window
      firstSeen: new Date(
        Math.floor((now - 5 * 86_400_000) / 1000) * 1000 + ((now - 5 * 86_400_000) % 1000),
      ).toISOString(),
      riskScore: 8,
    });
    const search = emulator.chronicle.searches[0];
    expect(search?.query).toBe('ip = "203.0.113.9"');
    expect(Date.parse(search?.endTime ?? '') - Date.parse(search?.startTime ?? '')).toBe(90 * 86_400_000 + 60_000);
    expect(search?.limit).toBe(10_000);
  });

  it('searches a URL in the url field of every noun, with searchDays and searchLimit', async () => {
    const siem = connect({ searchDays: 7, searchLimit: 50 });
    await siem.sendAlert({
      title: 'u',
      severity: 'low',
      indicators: [{ type: 'url', value: 'https://evil-login.com/kit' }],
    });
    expect(await siem.enrichIndicator({ type: 'url', value: 'https://evil-login.com/kit' })).toMatchObject({
      associatedEvents: 1,
    });
    expect(harness.emulator.chronicle.searches[0]).toMatchObject({
      query:
        'principal.url = "https://evil-login.com/kit" OR src.url = "https://evil-login.com/kit" OR target.url = "https://evil-login.com/kit" OR about.url = "https://evil-login.com/kit"',
      limit: 50,
    });
  });
});

describe('siem_e options', () => {
  const build = (overrides: Record<string, unknown>) => () =>
    new SIEMConnector({ ...harness.options, ...overrides } as SiemConnectorOptions);

  it('requires the project, location and instance, naming each', () => {
    expect(build({ project: undefined, instance: '' })).toThrow(ConfigurationError);
    expect(build({ project: undefined, instance: '' })).toThrow(
      /project: required: the Google Cloud project id or number; instance: required: the SecOps instance/,
    );
    expect(build({ location: 'us/evil' })).toThrow(/location: expected the SecOps region/);
  });

  it('says what is wrong with a key file without quoting it', () => {
    const { key } = harness;
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { credentials: { token: `{"private_key": "${key.private_key.slice(40, 80)}` } },
        /credentials.token: starts like a key file but is not valid JSON/,
      ],
      [
        { credentials: { token: JSON.stringify({ ...key, type: 'authorized_user' }) } },
        /expected a service account key file \(type service_account\) \(got type "authorized_user"\)/,
      ],
      [
        { credentials: { token: JSON.stringify({ ...key, private_key: 'not a key' }) } },
        /private_key is not a PEM private key/,
      ],
      [
        { credentials: { username: 'not-an-email', password: key.private_key } },
        /credentials.username: expected the service account’s e-mail/,
      ],
      [
        { credentials: { username: key.client_email, password: 'hunter2-password' } },
        /credentials.password: expected the service account’s private key in PEM/,
      ],
      [
        { tokenUri: 'http://127.0.0.1:1/token' },
        /tokenUri: the token endpoint http:\/\/127.0.0.1:1 must use the connector's protocol \(https\)/,
      ],
    ];
    for (const [overrides, message] of cases) {
      let thrown: unknown;
      try {
        build(overrides)();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(Object.keys(overrides))).toBeInstanceOf(ConfigurationError);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain(key.private_key.slice(40, 80));
      expect((thrown as Error).message).not.toContain('hunter2-password');
    }
  });
});
