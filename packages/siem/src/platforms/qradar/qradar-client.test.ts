import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient, type ThreatClientOptions, type ThreatConfig } from '@threatlib/core';
import { afterEach, describe, expect, it } from 'vitest';
import { qradarHarness } from '../../test-support/qradar-harness.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-qradar-client-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
/** A client that needs no network to conclude a threat: the indicator is on its own blocklist. */
const offline: ThreatConfig = { sources: [], strategy: 'aggressive', lists: [{ name: 'blocklist', file: listFile }] };
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/siem' ? import('../../index.js') : import(name)),
};

describe('integrations.siem with siem_b (QRadar)', () => {
  let harness: Awaited<ReturnType<typeof qradarHarness>> | undefined;
  const clients: ThreatClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.stop()));
    await harness?.close();
  });

  it('a client concluding a threat delivers its alert to QRadar as LEEF, with no other code', async () => {
    harness = await qradarHarness();
    const client = new ThreatClient({ ...offline, integrations: { siem: harness.options } }, application);
    clients.push(client);
    await client.start();
    expect((await client.correlate('evil.threatlib-test.net')).isThreat).toBe(true);
    await client.alerts.settled();

    expect(await harness.alerts()).toEqual([
      expect.objectContaining({ indicators: ['evil.threatlib-test.net'], severity: expect.any(String) }),
    ]);
    const { items } = await client.alerts.list();
    expect(items[0]?.deliveries).toEqual([
      expect.objectContaining({
        integration: 'siem',
        status: 'delivered',
        result: expect.objectContaining({
          platform: 'siem_b',
          accepted: 1,
          referenceSet: 'threatlib alert indicators',
        }),
      }),
    ]);
    const enriched = await client
      .integration('siem')
      ?.enrichIndicator({ type: 'domain', value: 'evil.threatlib-test.net' });
    expect(enriched).toMatchObject({ indicator: 'evil.threatlib-test.net', associatedEvents: 1 });
  });
});
