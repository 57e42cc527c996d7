import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { type RunningGuardDutyEmulator, startGuardDutyEmulator } from '@threatlib/cloud-emulator';
import {
  type Alert,
  ConfigurationError,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { INTEGRATION_PACKAGES, type IntegrationContext } from '@threatlib/core/integration';
import { ManualClock } from '@threatlib/core/testing';
import { eventually } from '@threatlib/test-utils';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { s3Location } from '../aws/publish-options.js';
import { describeWithMoto, freshBucket, MOTO_URL, motoS3, readObject } from '../test-support/moto.js';
import { CloudThreatListIntegration, type CloudThreatListOptions } from './cloud-integration-factory.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-configured-cloud-')), 'blocklist.txt');
writeFileSync(listFile, '198.51.100.77\n203.0.113.78\nevil.threatlib-test.net\n');
/** A client that needs no network to conclude a threat: the indicators are on its own blocklist. */
const offline: ThreatConfig = {
  sources: [],
  strategy: 'aggressive',
  lists: [{ name: 'blocklist', file: listFile }],
  // The test servers are plain HTTP on loopback.
  security: { enforceHttps: false },
};

/** What an application with `@threatlib/cloud` installed gives the client: core imports this package's source. */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/cloud' ? import('../index.js') : import(name)),
};

let emulator: RunningGuardDutyEmulator;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  emulator = await startGuardDutyEmulator();
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(() => emulator.reset());

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

function client(config: ThreatConfig): ThreatClient {
  const made = new ThreatClient(config, application);
  clients.push(made);
  return made;
}

function cloudOptions(
  bucket: string,
  extra: Partial<CloudThreatListOptions['threatList']> = {},
): CloudThreatListOptions {
  return {
    region: emulator.region,
    credentials: emulator.credentials,
    guardDutyEndpoint: emulator.url,
    s3Endpoint: MOTO_URL,
    forcePathStyle: true,
    maxAttempts: 1,
    threatList: { bucket, key: 'threatlib/threats.txt', name: 'threatlib', minConfidence: 50, ...extra },
  };
}

describe('@threatlib/cloud as the package core builds integrations.cloud from', () => {
  it("exports the factories core's table names for cloud and cloudSiem", async () => {
    const entry = (await import('../index.js')) as Record<string, unknown>;
    expect(INTEGRATION_PACKAGES.cloud.package).toBe('@threatlib/cloud');
    expect(typeof entry[INTEGRATION_PACKAGES.cloud.factory]).toBe('function');
    expect(typeof entry[INTEGRATION_PACKAGES.cloudSiem.factory]).toBe('function');
  });

  it('invalid options: start() rejects with a ConfigurationError under integrations.cloud', async () => {
    const threatClient = client({
      ...offline,
      integrations: { cloud: { region: 'us-east-1', threatList: { bucket: 'B!', key: 'k' } } },
    });
    const error = await threatClient.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error?.message).toMatch(/integrations\.cloud\.threatList\.bucket: expected an S3 bucket name/);
    expect(error?.message).toMatch(/integrations\.cloud\.threatList\.name: /);
  });

  it('plain HTTP endpoints while HTTPS is enforced: refused at start', async () => {
    const threatClient = client({
      ...offline,
      security: { enforceHttps: true },
      integrations: { cloud: cloudOptions('some-bucket') },
    });
    const error = await threatClient.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/integrations\.cloud\.s3Endpoint/);
  });
});

describeWithMoto(
  'integrations.cloud: concluded threats become the GuardDuty threat list (moto, GuardDuty emulator)',
  () => {
    let s3: S3Client;

    beforeAll(() => {
      s3 = motoS3();
    });

    afterAll(() => {
      s3.destroy();
    });

    it('a client concluding a threat publishes it to S3 and creates the GuardDuty set, with no other code', async () => {
      const bucket = await freshBucket(s3, 'configured');
      const threatClient = client({ ...offline, integrations: { cloud: cloudOptions(bucket) } });
      await threatClient.start();
      expect(threatClient.integration('cloud')).toBeInstanceOf(CloudThreatListIntegration);

      const verdict = await threatClient.correlate('198.51.100.77');
      expect(verdict.isThreat).toBe(true);
      expect(verdict.confidence).toBeGreaterThanOrEqual(50);
      await threatClient.alerts.settled();

      await eventually(() => emulator.guardDuty.threatIntelSets().length === 1, 'the GuardDuty set');
      expect(emulator.guardDuty.threatIntelSets()).toMatchObject([
        { name: 'threatlib', format: 'TXT', location: s3Location(bucket, 'threatlib/threats.txt'), status: 'ACTIVE' },
      ]);
      expect(await readObject(s3, bucket, 'threatlib/threats.txt')).toBe('198.51.100.77\n');
      const { items } = await threatClient.alerts.list();
      expect(items[0]?.deliveries).toEqual([
        expect.objectContaining({
          integration: 'cloud',
          status: 'delivered',
          result: expect.objectContaining({ queued: true }),
        }),
      ]);
      expect(threatClient.integration('cloud')?.health()).toMatchObject({ healthy: true });
    });

    it('a threat concluded before stop() is published by stop(), in the same set', async () => {
      const bucket = await freshBucket(s3, 'stop-flush');
      const threatClient = client({ ...offline, integrations: { cloud: cloudOptions(bucket) } });
      await threatClient.start();
      await threatClient.correlate('198.51.100.77');
      await threatClient.alerts.settled();
      await eventually(() => emulator.guardDuty.threatIntelSets().length === 1, 'the first publication');
      // Within the interval: due, not yet published.
      await threatClient.correlate('203.0.113.78');
      await threatClient.alerts.settled();
      expect((await readObject(s3, bucket, 'threatlib/threats.txt')).trim().split('\n')).toEqual(['198.51.100.77']);
      await threatClient.stop();
      const lines = (await readObject(s3, bucket, 'threatlib/threats.txt')).trim().split('\n').sort();
      expect(lines).toEqual(['198.51.100.77', '203.0.113.78']);
      expect(emulator.guardDuty.threatIntelSets()).toHaveLength(1);
    });

    it('batches: one publication per interval, however many threats arrive within it', async () => {
      const bucket = await freshBucket(s3, 'batched');
      const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
      const alerts: Alert[] = [];
      let n = 0;
      const threatClient = client(offline);
      // The integration as core builds it, given a manual clock (core's context has none to give).
      class OnManualClock extends CloudThreatListIntegration {
        constructor(options: CloudThreatListOptions, context: IntegrationContext) {
          super(options, context, { clock });
        }
      }
      const cloud = threatClient.registerIntegration(
        'cloud',
        OnManualClock,
        cloudOptions(bucket, { intervalMs: 60_000 }),
      );
      await threatClient.start();
      const threat = async (value: string, confidence = 90) => {
        const alert = await threatClient.alerts.add({
          id: `a${++n}`,
          title: 'threat',
          severity: 'high',
          indicators: [{ type: 'ip', value, confidence }],
        });
        alerts.push(alert);
        return cloud.sendAlert(alert);
      };
      const publications = () => emulator.requests.filter((r) => r.method === 'POST').length;

      expect(await threat('192.0.2.1')).toEqual({ queued: true, publishAt: '2026-03-01T00:00:00.000Z' });
      await clock.advance(0);
      await eventually(() => publications() === 1, 'the first publication');

      expect(await threat('192.0.2.2')).toEqual({ queued: true, publishAt: '2026-03-01T00:01:00.000Z' });
      expect(await threat('192.0.2.3')).toEqual({ queued: true, publishAt: '2026-03-01T00:01:00.000Z' });
      expect(await threat('192.0.2.4', 10)).toEqual({
        queued: false,
        reason: 'no IP address with confidence at or above 50',
      });
      await clock.advance(59_000);
      expect(publications()).toBe(1);
      await clock.advance(1_000);
      await eventually(() => publications() === 2, 'the batched publication');
      const lines = (await readObject(s3, bucket, 'threatlib/threats.txt')).trim().split('\n').sort();
      expect(lines).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3']);
      expect(emulator.guardDuty.threatIntelSets()).toMatchObject([{ updates: 1 }]);
    });

    it('a failed publication is reported by health() and tried again after the interval', async () => {
      const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
      const threatClient = client(offline);
      class OnManualClock extends CloudThreatListIntegration {
        constructor(options: CloudThreatListOptions, context: IntegrationContext) {
          super(options, context, { clock });
        }
      }
      const bucket = `tl-created-later-${Date.now().toString(36)}`;
      const cloud = threatClient.registerIntegration(
        'cloud',
        OnManualClock,
        cloudOptions(bucket, { intervalMs: 60_000 }),
      );
      await threatClient.start();
      const alert = await threatClient.alerts.add({
        title: 'threat',
        severity: 'high',
        indicators: [{ type: 'ip', value: '192.0.2.9', confidence: 90 }],
      });
      await cloud.sendAlert(alert);
      await clock.advance(0);
      await eventually(() => cloud.health().healthy === false, 'the failure');
      expect(cloud.health().detail).toMatch(/^last publication failed: S3 PutObject failed: NoSuchBucket/);

      const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      await clock.advance(60_000);
      await eventually(() => cloud.health().healthy, 'the retry');
      expect(await readObject(s3, bucket, 'threatlib/threats.txt')).toBe('192.0.2.9\n');
    });
  },
);
