import type { S3Client } from '@aws-sdk/client-s3';
import { type RunningGuardDutyEmulator, startGuardDutyEmulator } from '@threatlib/cloud-emulator';
import { ConfigurationError, fromStixBundle, MemoryAlertStore, ValidationError } from '@threatlib/core';
import type { AlertStore } from '@threatlib/core/integration';
import { ManualClock } from '@threatlib/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudError } from '../errors/cloud-error.js';
import { describeWithMoto, freshBucket, MOTO_URL, motoS3, readObject } from '../test-support/moto.js';
import { CloudIntegration, type CloudIntegrationRuntime } from './cloud-integration.js';
import type { CloudIntegrationOptions } from './cloud-options.js';
import { s3Location } from './publish-options.js';
import { alertStoreIndicators, type ThreatIndicatorSource } from './threat-indicators.js';

const AT = '2026-01-01T00:00:00.000Z';

let emulator: RunningGuardDutyEmulator;
const opened: CloudIntegration[] = [];

beforeAll(async () => {
  emulator = await startGuardDutyEmulator();
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(() => emulator.reset());

afterEach(async () => {
  await Promise.all(opened.splice(0).map((cloud) => cloud.stop()));
});

/** A CloudIntegration on the GuardDuty emulator and moto's S3. */
function cloudWith(options: Partial<CloudIntegrationOptions> = {}, runtime: CloudIntegrationRuntime = {}) {
  const cloud = new CloudIntegration(
    {
      region: emulator.region,
      credentials: emulator.credentials,
      guardDutyEndpoint: emulator.url,
      s3Endpoint: MOTO_URL,
      forcePathStyle: true,
      maxAttempts: 1,
      ...options,
    },
    runtime,
  );
  opened.push(cloud);
  return cloud;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('CloudIntegration: GuardDuty (on the emulator)', () => {
  it('runs the documented example: guardDuty.createThreatIntelSet({name, format, location, activate})', async () => {
    const cloud = new CloudIntegration({
      region: emulator.region,
      credentials: {
        accessKeyId: emulator.credentials.accessKeyId,
        secretAccessKey: emulator.credentials.secretAccessKey,
      },
      endpoint: emulator.url,
    });
    opened.push(cloud);
    const created = await cloud.guardDuty.createThreatIntelSet({
      name: 'threatlib-iocs',
      format: 'TXT',
      location: 'https://s3.amazonaws.com/my-threat-lists/threats.txt',
      activate: true,
    });
    // No detectorId given: the Region's detector, found with ListDetectors.
    expect(created.detectorId).toBe(emulator.detectorId);
    expect(emulator.guardDuty.threatIntelSets()).toMatchObject([
      {
        threatIntelSetId: created.threatIntelSetId,
        detectorId: emulator.detectorId,
        name: 'threatlib-iocs',
        format: 'TXT',
        location: 'https://s3.amazonaws.com/my-threat-lists/threats.txt',
        status: 'ACTIVE',
      },
    ]);
    expect(emulator.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /detector',
      `POST /detector/${emulator.detectorId}/threatintelset`,
    ]);
  });

  it('a wrong secret key: a CloudError naming the call and AWS’s reason, never the secret', async () => {
    const secretAccessKey = 'wrongSecretKey/ShouldNeverAppearAnywhere0123';
    const cloud = cloudWith({
      credentials: { accessKeyId: emulator.credentials.accessKeyId, secretAccessKey },
      detectorId: emulator.detectorId,
    });
    const error = await rejection(
      cloud.guardDuty.createThreatIntelSet({
        name: 'x',
        format: 'TXT',
        location: 'https://s3.amazonaws.com/b/k.txt',
        activate: true,
      }),
    );
    expect(CloudError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'GuardDuty CreateThreatIntelSet failed: InvalidSignatureException (HTTP 403): The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
    expect(error).toMatchObject({
      service: 'guardduty',
      operation: 'CreateThreatIntelSet',
      serviceCode: 'InvalidSignatureException',
      statusCode: 403,
      isRetryable: false,
    });
    const { cause: _cause, ...fields } = error as CloudError;
    expect(JSON.stringify({ ...fields, message: error.message })).not.toContain(secretAccessKey);
    expect(emulator.guardDuty.threatIntelSets()).toEqual([]);
  });

  it('an unknown access key id: the detector lookup fails, naming ListDetectors and AWS’s reason', async () => {
    const cloud = cloudWith({ credentials: { accessKeyId: 'AKIANOTAKEY', secretAccessKey: 'nope' } });
    const error = await rejection(cloud.guardDuty.detectorId());
    expect(error.message).toBe(
      'GuardDuty ListDetectors failed: UnrecognizedClientException (HTTP 403): The security token included in the request is invalid.',
    );
  });

  it('a Region without a detector, or with several: a CloudError saying to enable GuardDuty or give detectorId', async () => {
    const none = await startGuardDutyEmulator({ detectorIds: [] });
    const several = await startGuardDutyEmulator({ detectorIds: ['a'.repeat(32), 'b'.repeat(32)] });
    try {
      const noDetector = await rejection(cloudWith({ guardDutyEndpoint: none.url }).guardDuty.detectorId());
      expect(noDetector.message).toBe(
        'GuardDuty has no detector in us-east-1: enable GuardDuty in that Region, or give detectorId',
      );
      const two = await rejection(cloudWith({ guardDutyEndpoint: several.url }).guardDuty.detectorId());
      expect(two.message).toMatch(/^GuardDuty has 2 detectors in us-east-1 \(a{32}, b{32}\): give detectorId$/);
    } finally {
      await none.close();
      await several.close();
    }
  });

  it('refuses an invalid threat-intel set before sending anything', async () => {
    const cloud = cloudWith({ detectorId: emulator.detectorId });
    const error = await rejection(
      cloud.guardDuty.createThreatIntelSet({
        name: '',
        format: 'XML' as 'TXT',
        location: 'https://s3.amazonaws.com/b/k.txt',
        activate: 'yes' as unknown as boolean,
      }),
    );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^Invalid threat-intel set: name: .*; format: .*; activate: /);
    expect(emulator.requests).toEqual([]);
  });

  it('refuses invalid options with a ConfigurationError naming each, without quoting the secret', () => {
    const error = (() => {
      try {
        new CloudIntegration({
          region: 'Mars',
          credentials: { accessKeyId: '', secretAccessKey: 'sekrit-value-0123' },
          endpoint: 'ftp://example.com',
        });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error?.message).toBe(
      'Configuration invalid: region: expected an AWS Region such as us-east-1; credentials.accessKeyId: required: the access key id (AKIA...); endpoint: expected an http(s) URL such as https://guardduty.us-east-1.amazonaws.com',
    );
    expect(error?.message).not.toContain('sekrit');
  });

  it('an unreachable endpoint: a CloudError saying AWS was not reached', async () => {
    const cloud = cloudWith({ guardDutyEndpoint: 'http://127.0.0.1:9', detectorId: 'd'.repeat(32) });
    const error = await rejection(cloud.guardDuty.listThreatIntelSets());
    expect(error.message).toMatch(/^GuardDuty ListThreatIntelSets failed: AWS was not reached: .*ECONNREFUSED/);
    expect((error as CloudError).isRetryable).toBe(true);
  });
});

describeWithMoto('CloudIntegration: S3 (on moto) and publishThreatList', () => {
  let s3: S3Client;

  beforeAll(() => {
    s3 = motoS3();
  });

  afterAll(() => {
    s3.destroy();
  });

  it('runs the documented example: s3.putObject({Bucket, Key, Body})', async () => {
    const bucket = await freshBucket(s3, 'put');
    const cloud = new CloudIntegration({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      endpoint: MOTO_URL,
      forcePathStyle: true,
    });
    opened.push(cloud);
    const answer = await cloud.s3.putObject({ Bucket: bucket, Key: 'threats.txt', Body: '198.51.100.7\n' });
    expect(answer.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await readObject(s3, bucket, 'threats.txt')).toBe('198.51.100.7\n');
  });

  it('an S3 error: a CloudError naming PutObject and S3’s reason', async () => {
    const cloud = cloudWith();
    const error = await rejection(
      cloud.s3.putObject({ Bucket: 'tl-no-such-bucket-for-sure', Key: 'k.txt', Body: 'x' }),
    );
    expect(error.message).toBe('S3 PutObject failed: NoSuchBucket (HTTP 404): The specified bucket does not exist');
    expect(error).toMatchObject({ service: 's3', operation: 'PutObject', serviceCode: 'NoSuchBucket' });
  });

  it('publishing twice leaves one GuardDuty set, pointing at the new object, which holds exactly the threats at or above minConfidence', async () => {
    const bucket = await freshBucket(s3, 'publish');
    const alerts = new MemoryAlertStore();
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(alerts) });
    await alerts.add({
      title: 'Malicious ipv4',
      severity: 'high',
      indicators: [
        { type: 'ip', value: '198.51.100.7', confidence: 95 },
        { type: 'ip', value: '198.51.100.8', confidence: 79.9 },
        { type: 'ip', value: '2001:db8::66', confidence: 80 },
        { type: 'domain', value: 'evil.example.com', confidence: 99 },
        { type: 'sha256', value: 'a'.repeat(64), confidence: 99 },
      ],
    });

    const first = await cloud.publishThreatList({
      bucket,
      key: 'threatlib/v1.txt',
      name: 'threatlib',
      format: 'TXT',
      minConfidence: 80,
    });
    expect(first).toMatchObject({
      action: 'created',
      indicators: 2,
      skipped: { domain: 1, sha256: 1 },
      truncated: 0,
      detectorId: emulator.detectorId,
      location: `https://s3.amazonaws.com/${bucket}/threatlib/v1.txt`,
    });
    expect(await readObject(s3, bucket, 'threatlib/v1.txt')).toBe('198.51.100.7\n2001:db8::66\n');

    await alerts.add({
      title: 'Malicious ipv4',
      severity: 'critical',
      indicators: [
        { type: 'ip', value: '203.0.113.9', confidence: 88 },
        // Reassessed below the threshold: no longer on the list.
        { type: 'ip', value: '198.51.100.7', confidence: 40 },
      ],
    });
    const second = await cloud.publishThreatList({
      bucket,
      key: 'threatlib/v2.txt',
      name: 'threatlib',
      format: 'TXT',
      minConfidence: 80,
    });
    expect(second).toMatchObject({ action: 'updated', threatIntelSetId: first.threatIntelSetId, indicators: 2 });

    const sets = emulator.guardDuty.threatIntelSets();
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({
      threatIntelSetId: first.threatIntelSetId,
      name: 'threatlib',
      format: 'TXT',
      location: s3Location(bucket, 'threatlib/v2.txt'),
      status: 'ACTIVE',
      updates: 1,
    });
    const lines = (await readObject(s3, bucket, 'threatlib/v2.txt')).split('\n').filter(Boolean);
    expect(lines.sort()).toEqual(['2001:db8::66', '203.0.113.9']);
  });

  it('two publications at once still make one set', async () => {
    const bucket = await freshBucket(s3, 'concurrent');
    const alerts = new MemoryAlertStore();
    await alerts.add({
      title: 't',
      severity: 'high',
      indicators: [{ type: 'ip', value: '192.0.2.44', confidence: 90 }],
    });
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(alerts) });
    const both = await Promise.all([
      cloud.publishThreatList({ bucket, key: 'a.txt', name: 'together' }),
      cloud.publishThreatList({ bucket, key: 'b.txt', name: 'together' }),
    ]);
    expect(both.map((p) => p.action)).toEqual(['created', 'updated']);
    expect(emulator.guardDuty.threatIntelSets()).toHaveLength(1);
  });

  it('STIX: a STIX 2.1 bundle of every type of threat, read back by fromStixBundle', async () => {
    const bucket = await freshBucket(s3, 'stix');
    const alerts = new MemoryAlertStore();
    await alerts.add({
      title: 'threats',
      severity: 'high',
      indicators: [
        { type: 'ip', value: '198.51.100.7', confidence: 95, sources: ['feed_otx'] },
        { type: 'url', value: "http://evil.example.com/o'brien", confidence: 90 },
        { type: 'sha256', value: 'b'.repeat(64), confidence: 85 },
        { type: 'ip', value: '198.51.100.8', confidence: 10 },
      ],
    });
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(alerts) });
    const published = await cloud.publishThreatList({
      bucket,
      key: 'threats.json',
      name: 'threatlib-stix',
      format: 'STIX',
      minConfidence: 50,
    });
    expect(published).toMatchObject({ action: 'created', format: 'STIX', indicators: 3, skipped: {} });
    const bundle = JSON.parse(await readObject(s3, bucket, 'threats.json'));
    expect(bundle.type).toBe('bundle');
    const read = fromStixBundle(bundle);
    expect(read.indicators.map((i) => `${i.type}:${i.value}:${i.confidence}`).sort()).toEqual([
      'ipv4:198.51.100.7:95',
      `sha256:${'b'.repeat(64)}:85`,
      "url:http://evil.example.com/o'brien:90",
    ]);
    expect(emulator.guardDuty.threatIntelSets()).toMatchObject([{ name: 'threatlib-stix', format: 'STIX' }]);
  });

  it('refuses to re-point a set of another format (GuardDuty cannot change it)', async () => {
    const bucket = await freshBucket(s3, 'format');
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(new MemoryAlertStore()) });
    await cloud.publishThreatList({ bucket, key: 'l.json', name: 'mixed', format: 'STIX' });
    const error = await rejection(cloud.publishThreatList({ bucket, key: 'l.txt', name: 'mixed', format: 'TXT' }));
    expect(error.message).toMatch(/reads STIX and GuardDuty cannot change a set's format/);
    expect(emulator.guardDuty.threatIntelSets()).toMatchObject([
      { format: 'STIX', location: s3Location(bucket, 'l.json') },
    ]);
  });

  // Issue 21, finding 5: a value is checked where the list is written, whatever the source.
  it.each([
    [
      'a custom source',
      (): ThreatIndicatorSource => ({
        async *threatIndicators() {
          yield { type: 'ipv4', value: '192.0.2.9', confidence: 90, sources: [], firstSeen: AT, lastSeen: AT };
          yield {
            type: 'ipv4',
            value: '198.51.100.7\n0.0.0.0/0',
            confidence: 90,
            sources: [],
            firstSeen: AT,
            lastSeen: AT,
          };
        },
      }),
    ],
    [
      'alerts read back from a shared database',
      (): ThreatIndicatorSource => {
        const stored = {
          id: 'stored-1',
          title: 'written by another program',
          severity: 'high',
          indicators: [
            { type: 'ipv4', value: '192.0.2.9', confidence: 90 },
            { type: 'ipv4', value: '198.51.100.7\n0.0.0.0/0', confidence: 90 },
          ],
          timestamp: AT,
          deliveries: [],
        };
        return alertStoreIndicators({ list: async () => ({ items: [stored] }) } as unknown as AlertStore);
      },
    ],
  ])(
    'refuses a list with a value that would be two lines, from %s: nothing uploaded, GuardDuty untouched, the last list stays',
    async (_from, source) => {
      const bucket = await freshBucket(s3, 'poisoned');
      const good: ThreatIndicatorSource = {
        async *threatIndicators() {
          yield { type: 'ipv4', value: '192.0.2.9', confidence: 90, sources: [], firstSeen: AT, lastSeen: AT };
        },
      };
      const cloud = cloudWith();
      await cloud.publishThreatList({ bucket, key: 'list.txt', name: 'poisoned', indicators: good });
      const before = emulator.requests.length;
      const error = await rejection(
        cloud.publishThreatList({ bucket, key: 'list.txt', name: 'poisoned', indicators: source() }),
      );
      expect(ValidationError.isInstance(error)).toBe(true);
      expect(error.message).toBe(
        'Invalid threat list: indicators[1]: Invalid indicator "198.51.100.7\\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token',
      );
      expect(await readObject(s3, bucket, 'list.txt')).toBe('192.0.2.9\n');
      expect(emulator.requests.length).toBe(before);
    },
  );

  it('an S3 failure stops the publication before GuardDuty is touched', async () => {
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(new MemoryAlertStore()) });
    const error = await rejection(
      cloud.publishThreatList({ bucket: 'tl-missing-bucket-xyz', key: 'k.txt', name: 'never' }),
    );
    expect(error.message).toMatch(/^S3 PutObject failed: NoSuchBucket/);
    expect(emulator.requests).toEqual([]);
  });

  it('on a schedule: publishes now, again every intervalMs with what is new, and not after stop()', async () => {
    const bucket = await freshBucket(s3, 'schedule');
    const alerts = new MemoryAlertStore();
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const cloud = cloudWith({}, { indicators: alertStoreIndicators(alerts), clock });
    await alerts.add({
      title: 't',
      severity: 'high',
      indicators: [{ type: 'ip', value: '192.0.2.10', confidence: 90 }],
    });
    const first = await cloud.publishThreatList({
      bucket,
      key: 'scheduled.txt',
      name: 'scheduled',
      schedule: { intervalMs: 60_000 },
    });
    expect(first.action).toBe('created');
    expect(await readObject(s3, bucket, 'scheduled.txt')).toBe('192.0.2.10\n');

    await alerts.add({
      title: 't',
      severity: 'high',
      indicators: [{ type: 'ip', value: '192.0.2.11', confidence: 90 }],
    });
    await clock.advance(59_999);
    expect(await readObject(s3, bucket, 'scheduled.txt')).toBe('192.0.2.10\n');
    await clock.advance(1);
    await waitFor(() => cloud.lastPublication?.publishedAt === '2026-03-01T00:01:00.000Z');
    expect((await readObject(s3, bucket, 'scheduled.txt')).split('\n').filter(Boolean).sort()).toEqual([
      '192.0.2.10',
      '192.0.2.11',
    ]);
    expect(emulator.guardDuty.threatIntelSets()).toMatchObject([{ name: 'scheduled', updates: 1 }]);

    await cloud.stop();
    const requests = emulator.requests.length;
    expect(clock.pending).toBe(0);
    await clock.advance(600_000);
    expect(emulator.requests.length).toBe(requests);
  });

  it('refuses a schedule more often than once a minute, and a publication without a source of indicators', async () => {
    const cloud = cloudWith();
    const tooOften = await rejection(
      cloud.publishThreatList({ bucket: 'some-bucket', key: 'k', name: 'n', schedule: { intervalMs: 1000 } }),
    );
    expect(tooOften.message).toMatch(/^Invalid threat list options: schedule\.intervalMs: /);
    const noSource = await rejection(cloud.publishThreatList({ bucket: 'some-bucket', key: 'k', name: 'n' }));
    expect(noSource.message).toMatch(/^Invalid threat list options: indicators: required/);
    const fraction = await rejection(
      cloud.publishThreatList({ bucket: 'some-bucket', key: 'k', name: 'n', minConfidence: 0.8 }),
    );
    expect(fraction.message).toMatch(
      /^Invalid threat list options: minConfidence: minConfidence is 0\.\.100; got 0\.8 \(did you mean 80\?\)/,
    );
  });
});

/** Waits for a publication that runs on real I/O after the manual clock fired its timer. */
async function waitFor(condition: () => boolean, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the scheduled publication');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
