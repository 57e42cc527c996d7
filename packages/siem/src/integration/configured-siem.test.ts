import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigurationError,
  InsecureEndpointError,
  IntegrationError,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { INTEGRATION_PACKAGES } from '@threatlib/core/integration';
import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { SiemIntegration } from './siem-integration.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-configured-siem-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
/** A client that needs no network to conclude a threat: the indicator is on its own blocklist. */
const offline: ThreatConfig = { sources: [], strategy: 'aggressive', lists: [{ name: 'blocklist', file: listFile }] };

/** What an application with `@threatlib/siem` installed gives the client: core imports this package's source. */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/siem' ? import('../index.js') : import(name)),
};

let emulator: RunningSiemEmulator | undefined;
const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  await emulator?.close();
  emulator = undefined;
});

function splunkOptions(e: RunningSiemEmulator, extra: Record<string, unknown> = {}) {
  return {
    platform: 'siem_a',
    host: e.host,
    port: e.port,
    credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
    hec: { token: SPLUNK_DEFAULTS.hecToken, port: e.port },
    tls: { ca: TEST_CA },
    ...extra,
  };
}

function client(config: ThreatConfig): ThreatClient {
  const made = new ThreatClient(config, application);
  clients.push(made);
  return made;
}

function siemOf(threatClient: ThreatClient): SiemIntegration {
  const siem = threatClient.integration('siem');
  if (!siem) throw new Error('integrations.siem was not built');
  return siem;
}

describe('@threatlib/siem as the package core builds integrations.siem from', () => {
  it("exports the factory core's table names for siem", async () => {
    const entry = (await import('../index.js')) as Record<string, unknown>;
    expect(INTEGRATION_PACKAGES.siem.package).toBe('@threatlib/siem');
    expect(typeof entry[INTEGRATION_PACKAGES.siem.factory]).toBe('function');
  });

  it('a client concluding a threat delivers its alert to the SIEM, with no other code', async () => {
    emulator = await startSiemEmulator();
    const threatClient = client({ ...offline, integrations: { siem: splunkOptions(emulator) } });
    await threatClient.start();
    expect(threatClient.integration('siem')).toBeInstanceOf(SiemIntegration);

    const verdict = await threatClient.correlate('evil.threatlib-test.net');
    expect(verdict.isThreat).toBe(true);
    await threatClient.alerts.settled();

    const delivered = emulator.splunk.events.filter((e) => e.sourcetype === 'threatlib:alert');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.event).toMatchObject({
      kind: 'threatlib:alert',
      indicators: [expect.objectContaining({ value: 'evil.threatlib-test.net' })],
    });
    const { items } = await threatClient.alerts.list();
    expect(items[0]?.deliveries).toEqual([
      expect.objectContaining({
        integration: 'siem',
        status: 'delivered',
        result: { platform: 'siem_a', accepted: 1 },
      }),
    ]);
  });

  it('enriches through the configured SIEM: what the client delivered is found again', async () => {
    emulator = await startSiemEmulator();
    const threatClient = client({ ...offline, integrations: { siem: splunkOptions(emulator) } });
    await threatClient.start();
    await threatClient.correlate('evil.threatlib-test.net');
    await threatClient.alerts.settled();
    const enriched = await siemOf(threatClient).enrichIndicator({ type: 'domain', value: 'evil.threatlib-test.net' });
    expect(enriched).toMatchObject({ indicator: 'evil.threatlib-test.net', associatedEvents: 1 });
  });

  it('a SIEM that refuses the token: the delivery is failed with the reason, tried once', async () => {
    emulator = await startSiemEmulator();
    const threatClient = client({
      ...offline,
      integrations: {
        siem: splunkOptions(emulator, { hec: { token: 'ffffffff-0000-0000-0000-000000000000', port: emulator.port } }),
      },
    });
    await threatClient.start();
    await threatClient.correlate('evil.threatlib-test.net');
    await threatClient.alerts.settled();
    const { items } = await threatClient.alerts.list();
    expect(items[0]?.deliveries).toEqual([
      expect.objectContaining({ integration: 'siem', status: 'failed', attempts: 1 }),
    ]);
    expect(JSON.stringify(items[0]?.deliveries)).toContain('authentication failed: Invalid token');
    expect(JSON.stringify(items[0]?.deliveries)).not.toContain('ffffffff-0000-0000-0000-000000000000');
  });

  it('a SIEM that is busy: the client retries the delivery up to the connector’s retries', async () => {
    emulator = await startSiemEmulator();
    const threatClient = client({
      ...offline,
      performance: { retryDelay: 1 },
      integrations: { siem: splunkOptions(emulator, { retries: 2 }) },
    });
    await threatClient.start();
    emulator.failNext(2, 'busy', 'splunk');
    await threatClient.correlate('evil.threatlib-test.net');
    await threatClient.alerts.settled();
    const { items } = await threatClient.alerts.list();
    expect(items[0]?.deliveries).toEqual([
      expect.objectContaining({ integration: 'siem', status: 'delivered', attempts: 3 }),
    ]);
    expect(emulator.splunk.events.filter((e) => e.sourcetype === 'threatlib:alert')).toHaveLength(1);
  });

  it('refuses invalid options at start(), each named by its path under integrations.siem', async () => {
    const threatClient = client({
      ...offline,
      integrations: { siem: { platform: 'siem_a', host: 'https://splunk.example.com', port: 0, credentials: {} } },
    });
    const error = await threatClient.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).issues.map((issue) => issue.path)).toEqual([
      'integrations.siem.host',
      'integrations.siem.port',
      'integrations.siem.credentials',
    ]);
  });

  it('plain HTTP is refused while security.enforceHttps is on, and allowed when the client turns it off', async () => {
    emulator = await startSiemEmulator({ tls: false });
    const { tls: _tls, ...plain } = { ...splunkOptions(emulator), protocol: 'http' };
    const strict = client({ ...offline, integrations: { siem: plain } });
    const error = await strict.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect(InsecureEndpointError.isInstance((error as Error).cause)).toBe(true);
    expect((error as Error).message).toMatch(
      /integrations\.siem siem_a endpoint http:\/\/127\.0\.0\.1:\d+\/ is not HTTPS/,
    );

    const lenient = client({ ...offline, security: { enforceHttps: false }, integrations: { siem: plain } });
    await lenient.start();
    await lenient.correlate('evil.threatlib-test.net');
    await lenient.alerts.settled();
    expect(emulator.splunk.events).toHaveLength(1);
  });

  it('health() says whether the SIEM answers and accepts the credentials', async () => {
    emulator = await startSiemEmulator();
    const threatClient = client({ ...offline, integrations: { siem: splunkOptions(emulator) } });
    await threatClient.start();
    expect(await siemOf(threatClient).health()).toMatchObject({ healthy: true, version: '9.4.1' });
    emulator.splunk.healthy = false;
    expect(await siemOf(threatClient).health()).toMatchObject({
      healthy: false,
      detail: expect.stringContaining('HEC is unhealthy'),
    });
  });
});
