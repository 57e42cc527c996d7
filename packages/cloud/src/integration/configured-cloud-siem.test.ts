import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientSecretCredential } from '@azure/identity';
import { type RunningSentinelEmulator, startSentinelEmulator } from '@threatlib/cloud-emulator';
import {
  ConfigurationError,
  silentLogger,
  THREATLIB_STIX_IDENTITY,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CloudSiemIntegration } from '../azure/cloud-siem-integration.js';

const EVIL = 'evil.threatlib-test.net';
const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-configured-cloud-siem-')), 'blocklist.txt');
writeFileSync(listFile, `${EVIL}\n198.51.100.77\n`);
const SUSPECT = 'suspect.threatlib-test.net';
const suspectFile = join(mkdtempSync(join(tmpdir(), 'threatlib-configured-cloud-siem-')), 'suspects.txt');
writeFileSync(suspectFile, `${SUSPECT}\n`);

/** What an application with `@threatlib/cloud` installed gives the client: core imports this package's source. */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/cloud' ? import('../index.js') : import(name)),
};

let emulator: RunningSentinelEmulator;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  emulator = await startSentinelEmulator();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => (c.state === 'idle' ? undefined : c.stop())));
  emulator.reset();
});
afterAll(() => emulator.close());

/** A client that concludes threats from its own blocklist (no feed asked), with `integrations.cloudSiem`. */
function client(cloudSiem: Record<string, unknown> = {}): ThreatClient {
  const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } = emulator.sentinel.config;
  const made = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [
        { name: 'blocklist', file: listFile },
        { name: 'suspects', file: suspectFile, verdict: 'suspicious' },
      ],
      integrations: {
        cloudSiem: {
          subscriptionId,
          resourceGroupName: resourceGroup,
          workspaceName,
          credentials: { tenantId, clientId, clientSecret, authorityHost: emulator.url },
          endpoints: { threatIntelligence: emulator.url, resourceManager: emulator.url },
          batchIntervalMs: 50,
          ...cloudSiem,
        },
      },
    } as ThreatConfig,
    application,
  );
  clients.push(made);
  return made;
}

describe('integrations.cloudSiem', () => {
  it('publishes the threats the client concludes as STIX indicators made by core, in one batched request', async () => {
    const c = client();
    await c.start();
    const sentinel = c.integration('cloudSiem') as CloudSiemIntegration;

    const [evil, ip, clean] = await Promise.all([
      c.correlate(EVIL),
      c.correlate('198.51.100.77'),
      c.correlate('clean.threatlib-test.net'),
    ]);
    expect([evil.isThreat, ip.isThreat, clean.isThreat]).toEqual([true, true, false]);
    await sentinel.flush();

    const objects = [...emulator.sentinel.objects.values()].map((o) => o.object);
    expect(objects.map((o) => o.pattern).sort()).toEqual([
      "[domain-name:value = 'evil.threatlib-test.net']",
      "[ipv4-addr:value = '198.51.100.77']",
    ]);
    expect(objects.find((o) => o.name === EVIL)).toMatchObject({
      type: 'indicator',
      spec_version: '2.1',
      created_by_ref: THREATLIB_STIX_IDENTITY.id,
      indicator_types: ['malicious-activity'],
      confidence: Math.round(evil.confidence),
    });
    expect(emulator.sentinel.uploads.map((u) => [u.objects, u.errors.length])).toEqual([[2, 0]]);
    expect(sentinel.stats()).toMatchObject({ published: 2, refused: 0, failed: 0, dropped: 0, queued: 0 });
    expect(sentinel.health()).toMatchObject({ healthy: true, api: 'stix' });
  });

  it('does not publish the alert about a threat a second time', async () => {
    const c = client();
    await c.start();
    await c.scout(EVIL);
    await (c.integration('cloudSiem') as CloudSiemIntegration).flush();
    await c.alerts.settled();

    const [alert] = (await c.alerts.list()).items;
    expect(alert?.deliveries).toEqual([
      expect.objectContaining({ integration: 'cloudSiem', status: 'delivered', result: { published: 0, skipped: 1 } }),
    ]);
    expect(emulator.sentinel.uploads).toHaveLength(1);
  });

  it('leaves out threats below minConfidence', async () => {
    const c = client({ minConfidence: 90 });
    await c.start();
    const [evil, suspect] = await Promise.all([c.correlate(EVIL), c.correlate(SUSPECT)]);
    await (c.integration('cloudSiem') as CloudSiemIntegration).flush();
    expect([evil.isThreat, suspect.isThreat]).toEqual([true, true]);
    expect(evil.confidence).toBeGreaterThanOrEqual(90);
    expect(suspect.confidence).toBeLessThan(90);
    expect([...emulator.sentinel.objects.values()].map((o) => o.object.name)).toEqual([EVIL]);
  });

  it('takes an @azure/identity credential object from the configuration, and the legacy API', async () => {
    const { tenantId, clientId, clientSecret } = emulator.sentinel.config;
    const credentials = new ClientSecretCredential(tenantId, clientId, clientSecret, {
      authorityHost: emulator.url,
      disableInstanceDiscovery: true,
    });
    const c = client({ credentials, api: 'legacy' });
    await c.start();
    await c.correlate(EVIL);
    await (c.integration('cloudSiem') as CloudSiemIntegration).flush();
    expect([...emulator.sentinel.legacyIndicators.values()].map((i) => i.properties.pattern)).toEqual([
      "[domain-name:value = 'evil.threatlib-test.net']",
    ]);
  });

  it('is unhealthy, with the reason, while Sentinel refuses the app, and logs no secret', async () => {
    const wrong = 'n0t~the~secret~4321';
    const { tenantId, clientId } = emulator.sentinel.config;
    const c = client({
      credentials: { tenantId, clientId, clientSecret: wrong, authorityHost: emulator.url },
      retries: 0,
    });
    await c.start();
    await c.correlate(EVIL);
    const sentinel = c.integration('cloudSiem') as CloudSiemIntegration;
    await sentinel.flush();
    const health = sentinel.health();
    expect(health).toMatchObject({ healthy: false, failed: 1 });
    expect(health.detail).toContain('AADSTS7000215');
    expect(JSON.stringify(health)).not.toContain(wrong);
  });

  it('refuses to start with options that cannot work', async () => {
    const c = client({ subscriptionId: undefined, workspaceId: 'nope' });
    const error = await c.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error) || (error as { cause?: unknown }).cause).toBeTruthy();
    expect(String((error as Error).message)).toContain(
      'integrations.cloudSiem.subscriptionId: required: the subscription id',
    );
    expect(String((error as Error).message)).toContain(
      'integrations.cloudSiem.workspaceId: expected the workspace id as a GUID',
    );
  });

  it('stops with nothing left running', async () => {
    const c = client({ batchIntervalMs: 60_000 });
    await c.start();
    await c.correlate(EVIL);
    const sentinel = c.integration('cloudSiem') as CloudSiemIntegration;
    expect(sentinel.stats().queued).toBe(1);
    await c.stop();
    // What was queued is sent once on stop.
    await vi.waitFor(() => expect(emulator.sentinel.objects.size).toBe(1));
    expect(sentinel.stats()).toMatchObject({ published: 1, queued: 0 });
  });
});
