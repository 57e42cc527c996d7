import { gunzipSync } from 'node:zlib';
import { ManualClock } from '@threatlib/core/testing';
import { SENTINEL_DEFAULTS as D, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiemConnectorOptions } from '../../connector/connector-options.js';
import { SIEMConnector } from '../../connector/siem-connector.js';
import { SiemError } from '../../connector/siem-error.js';
import { sentinelHarness } from '../../test-support/sentinel-harness.js';

type Harness = Awaited<ReturnType<typeof sentinelHarness>>;
let harness: Harness | undefined;
const connectors: SIEMConnector[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.stop()));
  await harness?.close();
  harness = undefined;
});

async function setup(emulatorOptions: Parameters<typeof sentinelHarness>[0] = {}): Promise<Harness> {
  harness = await sentinelHarness(emulatorOptions);
  return harness;
}

function connect(overrides: Partial<SiemConnectorOptions> = {}, runtime = {}): SIEMConnector {
  const connector = new SIEMConnector(
    {
      ...(harness as Harness).options,
      timeout: 10_000,
      retries: 2,
      retryDelay: 1,
      ...overrides,
    } as SiemConnectorOptions,
    runtime,
  );
  connectors.push(connector);
  return connector;
}

async function failure(promise: Promise<unknown>): Promise<SiemError> {
  const error = await promise.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(SiemError.isInstance(error), String(error)).toBe(true);
  const text = `${(error as Error).message} ${JSON.stringify(error)} ${(error as Error).stack}`;
  for (const secret of [D.clientSecret, 'not~the~client~secret~5f3a']) expect(text).not.toContain(secret);
  return error as SiemError;
}

describe('siem_d: the documented SIEMConnector example against the Sentinel emulator', () => {
  it('sendAlert, createCase, enrichIndicator and testConnection, each through its Azure API', async () => {
    const { emulator } = await setup();
    const siem = new SIEMConnector({
      platform: 'siem_d',
      host: emulator.host,
      port: emulator.port,
      credentials: { username: D.clientId, password: D.clientSecret },
      timeout: 30000,
      retries: 3,
      tenantId: D.tenantId,
      dataCollectionRuleId: D.dataCollectionRuleId,
      workspaceId: D.workspaceId,
      subscriptionId: D.subscriptionId,
      resourceGroup: D.resourceGroup,
      workspaceName: D.workspaceName,
      authorityHost: emulator.url,
      logAnalyticsEndpoint: emulator.url,
      armEndpoint: emulator.url,
      tls: { ca: TEST_CA },
    });
    connectors.push(siem);
    const report = await siem.testConnection();
    expect(report.platform).toBe('siem_d');
    expect(Object.keys(report.checks)).toEqual(['token', 'workspace', 'incidents']);

    const timestamp = new Date(Date.now() - 3_600_000).toISOString();
    await siem.sendAlert({
      title: 'Malicious IP',
      severity: 'high',
      description: 'C2 traffic',
      indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 90 }],
      timestamp,
    });
    const upload = emulator.requests.find((r) => r.path.startsWith('/dataCollectionRules/'));
    expect(upload?.headers['content-encoding']).toBe('gzip');
    expect(upload?.query.get('api-version')).toBe('2023-01-01');
    expect(JSON.parse(gunzipSync(upload?.raw as Buffer).toString())).toEqual([
      expect.objectContaining({
        TimeGenerated: timestamp,
        Title: 'Malicious IP',
        Severity: 'high',
        Description: 'C2 traffic',
        Indicators: [{ type: 'ipv4', value: '198.51.100.7', confidence: 90 }],
      }),
    ]);
    expect(emulator.sentinel.dropped).toEqual([]);

    const id = await siem.createCase({
      title: 'Phishing campaign',
      description: 'Credential harvesting against finance',
      priority: 'critical',
      assignee: 'analyst@example.com',
      indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
    });
    const incident = emulator.sentinel.incidents.get(id);
    expect(incident?.properties).toMatchObject({
      title: 'Phishing campaign',
      severity: 'High',
      status: 'New',
      owner: { email: 'analyst@example.com', userPrincipalName: 'analyst@example.com' },
      labels: [
        { labelName: 'threatlib', labelType: 'User' },
        { labelName: 'priority:critical', labelType: 'User' },
      ],
      description:
        'Credential harvesting against finance\n\nIndicators:\n- domain login-example.com (source: feed_urls)',
    });
    const put = emulator.requests.find((r) => r.method === 'PUT');
    expect(put?.query.get('api-version')).toBe('2025-09-01');

    const enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' });
    expect(enriched).toEqual({
      indicator: '198.51.100.7',
      firstSeen: timestamp,
      lastSeen: timestamp,
      associatedEvents: 1,
      riskScore: 0,
    });
    // One token per API, each for its own audience, asked for once (MSAL caches them).
    expect(emulator.sentinel.authority.issued.map((t) => t.audience).sort()).toEqual([
      'https://api.loganalytics.io',
      'https://management.azure.com/',
      'https://monitor.azure.com',
    ]);
  });
});

describe('siem_d: refusals carry Azure’s own reason', () => {
  it('a wrong client secret: "authentication failed: AADSTS7000215: ..." at once, without retrying', async () => {
    const { emulator } = await setup();
    const siem = connect(harness?.badCredentials);
    const error = await failure(siem.testConnection());
    expect(error.message).toMatch(/^authentication failed: AADSTS7000215: Invalid client secret provided\./);
    expect(error.message).not.toMatch(/Trace ID/);
    expect(error).toMatchObject({ siemCode: 'AADSTS7000215', attempts: 1, isRetryable: false });
    expect(emulator.requests.filter((r) => r.path.endsWith('/oauth2/v2.0/token'))).toHaveLength(1);
  });

  it('an unknown tenant: "authentication failed: AADSTS90002: Tenant ... not found"', async () => {
    await setup();
    const error = await failure(connect({ tenantId: '00000000-0000-4000-8000-000000000000' }).testConnection());
    expect(error.message).toMatch(
      /^authentication failed: AADSTS90002: Tenant '00000000-0000-4000-8000-000000000000' not found/,
    );
  });

  it('a token for another audience: the API’s refusal, not retried', async () => {
    const { emulator } = await setup();
    const token = emulator.sentinel.authority.issue(D.clientId, 'https://monitor.azure.com');
    const siem = connect({ credentials: { token } });
    await siem.sendAlert({ title: 'with a pre-issued token', severity: 'low' });
    expect(emulator.sentinel.rows()).toHaveLength(1);
    const error = await failure(siem.createCase({ title: 'x', priority: 'low' }));
    expect(error.message).toMatch(
      /^authentication failed: InvalidAuthenticationTokenAudience: The access token has been obtained for wrong audience/,
    );
    expect(error.message).not.toContain(token);
    expect(error.attempts).toBe(1);
  });

  it('no role on the data collection rule: 403 OperationFailed, reported as refused, not retried', async () => {
    await setup({ sentinel: { deny: { ingestion: true } } });
    const error = await failure(connect().sendAlert({ title: 'x', severity: 'low' }));
    expect(error.message).toMatch(
      /^authentication failed: OperationFailed: The authentication token provided does not have access to ingest data/,
    );
    expect(error).toMatchObject({ statusCode: 403, attempts: 1 });
  });

  it('a query Log Analytics refuses: its code and innermost message, not retried', async () => {
    await setup();
    const error = await failure(
      connect({ table: 'NoSuchTable_CL' }).enrichIndicator({ type: 'ip', value: '192.0.2.1' }),
    );
    expect(error.message).toMatch(
      /HTTP 400: BadArgumentError: .*Failed to resolve table or column expression named 'NoSuchTable_CL'/,
    );
    expect(error).toMatchObject({ statusCode: 400, siemCode: 'BadArgumentError', isRetryable: false, attempts: 1 });
  });

  it('an emulator certificate the connector does not trust: unreachable, pointing at tls.ca, not retried', async () => {
    await setup();
    const error = await failure(connect({ tls: { rejectUnauthorized: true } }).testConnection());
    expect(error.message).toMatch(/unreachable: TLS certificate not trusted \(\w+\); pass its authority as tls\.ca/);
    expect(error.attempts).toBe(1);
  });
});

describe('siem_d: retries and cases', () => {
  it('waits as long as Retry-After asks before the next attempt', async () => {
    const { emulator } = await setup({ sentinel: { busyRetryAfter: 7 } });
    const clock = new ManualClock(Date.now());
    const siem = connect({ retries: 1, retryDelay: 1 }, { clock });
    await siem.testConnection();
    emulator.failNext(1, 'busy', 'sentinel');
    const uploads = () => emulator.requests.filter((r) => r.path.startsWith('/dataCollectionRules/')).length;
    const sent = siem.sendAlert({ title: 'throttled', severity: 'low' });
    await vi.waitFor(() => expect(uploads()).toBe(1));
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    await clock.advance(6_999);
    expect(uploads()).toBe(1);
    await clock.advance(1);
    await sent;
    expect(uploads()).toBe(2);
    expect(emulator.sentinel.rows().map((r) => r.Title)).toEqual(['throttled']);
  });

  it('a case retried after a busy answer is one incident, written twice under the same id', async () => {
    const { emulator } = await setup({ sentinel: { busyRetryAfter: 0 } });
    const siem = connect();
    await siem.testConnection();
    emulator.failNext(1, 'busy', 'sentinel');
    const id = await siem.createCase({ title: 'once', priority: 'medium' });
    const puts = emulator.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([429, 201]);
    expect(new Set(puts.map((r) => r.path))).toEqual(new Set([puts[0]?.path]));
    expect([...emulator.sentinel.incidents.keys()]).toEqual([id]);
    expect(emulator.sentinel.incidents.get(id)?.properties.severity).toBe('Medium');
  });

  it('without the workspace’s ARM names, createCase says what to set; alerts still go', async () => {
    await setup();
    const { subscriptionId: _s, resourceGroup: _r, workspaceName: _w, ...options } = (harness as Harness).options;
    const siem = new SIEMConnector({ ...options, retries: 0 } as SiemConnectorOptions);
    connectors.push(siem);
    const error = await failure(siem.createCase({ title: 'x', priority: 'low' }));
    expect(error.code).toBe('SIEM_UNSUPPORTED');
    expect(error.message).toMatch(/set subscriptionId, resourceGroup and workspaceName/);
    await siem.sendAlert({ title: 'still delivered', severity: 'low' });
  });

  it('an alert too large for one ingestion call is refused before sending', async () => {
    const { emulator } = await setup();
    const error = await failure(
      connect().sendAlert({
        title: 'huge',
        severity: 'low',
        indicators: Array.from({ length: 9_000 }, (_, i) => ({
          type: 'url' as const,
          value: `https://example.com/${'p'.repeat(100)}${i}`,
        })),
      }),
    );
    expect(error.message).toMatch(/at most 1 MB per call/);
    expect(emulator.requests.filter((r) => r.path.startsWith('/dataCollectionRules/'))).toHaveLength(0);
  });
});

describe('siem_d options', () => {
  const base = {
    platform: 'siem_d' as const,
    host: 'my-dce.westeurope-1.ingest.monitor.azure.com',
    credentials: { username: D.clientId, password: D.clientSecret },
    tenantId: D.tenantId,
    dataCollectionRuleId: D.dataCollectionRuleId,
    workspaceId: D.workspaceId,
  };

  it('takes the documented shape with the Azure ids, port 443 by default', () => {
    expect(new SIEMConnector(base).address).toBe('my-dce.westeurope-1.ingest.monitor.azure.com:443');
  });

  it('refuses what cannot work, saying what to set', () => {
    const { tenantId: _t, ...noTenant } = base;
    expect(() => new SIEMConnector(noTenant)).toThrow(
      /Configuration invalid: tenantId: required with \{username, password\}/,
    );
    expect(() => new SIEMConnector({ ...base, dataCollectionRuleId: 'my-rule' })).toThrow(
      /dataCollectionRuleId: expected the rule’s immutable id/,
    );
    expect(() => new SIEMConnector({ ...base, subscriptionId: D.subscriptionId })).toThrow(
      /resourceGroup: cases need subscriptionId, resourceGroup and workspaceName together/,
    );
    expect(() => new SIEMConnector({ ...base, protocol: 'http', enforceHttps: false })).toThrow(
      /protocol: siem_d speaks to Azure, which is HTTPS only/,
    );
    expect(() => new SIEMConnector({ ...base, authorityHost: 'http://login.example' })).toThrow(
      /authorityHost: the authority host must be https/,
    );
    expect(() => new SIEMConnector({ ...base, table: 'T | take 1 //' })).toThrow(/table: expected a table name/);
  });
});
