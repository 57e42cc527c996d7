// The cloud integration of ../shared/INTERFACE.md (sections 2.5, 4.2 and 5): `CloudIntegration` from
// `@threatlib/cloud` constructed with {region, credentials: {accessKeyId, secretAccessKey}}, running
// `guardDuty.createThreatIntelSet({name, format: 'TXT', location, activate: true})` and `s3.putObject({Bucket, Key,
// Body})` as written. S3 is the real moto server (an e2e service: path-style, any credentials); GuardDuty is
// @threatlib/cloud-emulator's, because moto does not implement threat-intel sets: it checks the SigV4 signature with
// the emulated account's key. The only additions to the documented options are the addresses of the two test servers
// (`s3Endpoint`, `guardDutyEndpoint`, `forcePathStyle` for moto). Bucket names are unique per run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ClientSecretCredential } from '@azure/identity';
import { alertStoreIndicators, CloudIntegration, CloudSiemIntegration, s3Location } from '@threatlib/cloud';
import {
  GUARDDUTY_TEST_KEY,
  type RunningGuardDutyEmulator,
  type RunningSentinelEmulator,
  startGuardDutyEmulator,
  startSentinelEmulator,
} from '@threatlib/cloud-emulator';
import { ThreatClient } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describeWith,
  type EmulatedFeeds,
  eventually,
  servicePort,
  startEmulatedFeeds,
  uniqueName,
} from './support.js';

const MOTO = `http://127.0.0.1:${servicePort('moto')}`;
/** The emulated account's access key (moto takes any). */
const ACCESS_KEY_ID = GUARDDUTY_TEST_KEY.accessKeyId;
const SECRET_ACCESS_KEY = GUARDDUTY_TEST_KEY.secretAccessKey;

// The user's own blocklist names the threats, so the client concludes them with no feed.
const listDir = mkdtempSync(join(tmpdir(), 'threatlib-e2e-cloud-'));
const blocklist = join(listDir, 'blocklist.txt');
writeFileSync(blocklist, '198.51.100.23\nmalicious-site.com\n');

let feeds: EmulatedFeeds;
let guardDutyServer: RunningGuardDutyEmulator;
let sentinelServer: RunningSentinelEmulator;
let s3: S3Client;
const running: { stop(): Promise<void> }[] = [];

/** A bucket of this run on moto. */
async function bucketOfThisRun(label: string): Promise<string> {
  const bucket = uniqueName(label)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

async function objectText(bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString('utf8')) ?? '';
}

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  guardDutyServer = await startGuardDutyEmulator();
  sentinelServer = await startSentinelEmulator();
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: MOTO,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  });
});

afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.stop();
  guardDutyServer.reset();
  sentinelServer.reset();
});

afterAll(async () => {
  s3?.destroy();
  await guardDutyServer?.close();
  await sentinelServer?.close();
  await feeds?.emulator.close();
});

describeWith(['moto'], '4.2 CloudIntegration (S3 on moto, GuardDuty on the emulator)', () => {
  it('runs guardDuty.createThreatIntelSet({name, format, location, activate}) and s3.putObject({Bucket, Key, Body}) as written', async () => {
    const bucket = await bucketOfThisRun('threat-intel');
    const cloud = new CloudIntegration({
      region: 'us-east-1',
      credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
      s3Endpoint: MOTO,
      guardDutyEndpoint: guardDutyServer.url,
      forcePathStyle: true,
    });
    running.push(cloud);

    const threats = [{ indicator: '198.51.100.23', confidence: 95 }];
    await cloud.s3.putObject({ Bucket: bucket, Key: 'threats/latest.json', Body: JSON.stringify(threats) });
    await cloud.guardDuty.createThreatIntelSet({
      name: 'threatlib-threats',
      format: 'TXT',
      location: `https://s3.amazonaws.com/${bucket}/threats/latest.txt`,
      activate: true,
    });

    expect(JSON.parse(await objectText(bucket, 'threats/latest.json'))).toEqual(threats);
    expect(guardDutyServer.guardDuty.threatIntelSets()).toMatchObject([
      {
        name: 'threatlib-threats',
        format: 'TXT',
        location: `https://s3.amazonaws.com/${bucket}/threats/latest.txt`,
        status: 'ACTIVE',
        detectorId: guardDutyServer.detectorId,
      },
    ]);
  });

  it('publishThreatList run twice leaves one GuardDuty set pointing at the new object, holding exactly the threats at or above minConfidence', async () => {
    const bucket = await bucketOfThisRun('threat-lists');
    const trojan = new ThreatClient({ sources: ['feed_urls'], logging: { enabled: false } });
    running.push(trojan);
    await trojan.alerts.add({
      title: 'Malicious IP',
      severity: 'high',
      indicators: [
        { type: 'ip', value: '198.51.100.23', confidence: 95 },
        { type: 'ip', value: '198.51.100.24', confidence: 50 },
        { type: 'domain', value: 'malicious-site.com', confidence: 95 },
      ],
      timestamp: new Date().toISOString(),
    });
    const cloud = new CloudIntegration(
      {
        region: 'us-east-1',
        credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
        s3Endpoint: MOTO,
        guardDutyEndpoint: guardDutyServer.url,
        forcePathStyle: true,
      },
      { indicators: alertStoreIndicators(trojan.alerts) },
    );
    running.push(cloud);

    const first = await cloud.publishThreatList({
      bucket,
      key: 'v1.txt',
      name: 'threatlib',
      format: 'TXT',
      minConfidence: 80,
    });
    await trojan.alerts.add({
      title: 'Malicious IP',
      severity: 'critical',
      indicators: [{ type: 'ip', value: '203.0.113.50', confidence: 81 }],
      timestamp: new Date().toISOString(),
    });
    const second = await cloud.publishThreatList({
      bucket,
      key: 'v2.txt',
      name: 'threatlib',
      format: 'TXT',
      minConfidence: 80,
    });

    expect([first.action, second.action]).toEqual(['created', 'updated']);
    expect(second.skipped).toEqual({ domain: 1 });
    const sets = guardDutyServer.guardDuty.threatIntelSets();
    expect(sets).toHaveLength(1);
    expect(sets[0]).toMatchObject({ threatIntelSetId: first.threatIntelSetId, location: s3Location(bucket, 'v2.txt') });
    expect((await objectText(bucket, 'v2.txt')).split('\n').filter(Boolean).sort()).toEqual([
      '198.51.100.23',
      '203.0.113.50',
    ]);
  });

  it('wrong credentials: the error names the call and AWS’s reason', async () => {
    const cloud = new CloudIntegration({
      region: 'us-east-1',
      credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: 'not-the-secret-access-key' },
      guardDutyEndpoint: guardDutyServer.url,
      maxAttempts: 1,
    });
    running.push(cloud);
    const attempt = cloud.guardDuty.createThreatIntelSet({
      name: 'threatlib-threats',
      format: 'TXT',
      location: 'https://s3.amazonaws.com/threat-intel/threats.txt',
      activate: true,
    });
    await expect(attempt).rejects.toThrow(
      /^GuardDuty ListDetectors failed: InvalidSignatureException \(HTTP 403\): The request signature we calculated does not match the signature you provided\./,
    );
    await expect(attempt).rejects.not.toThrow(/not-the-secret-access-key/);
  });
});

describeWith(['moto'], '4.2 a client constructed with integrations.cloud', () => {
  it('publishes the threats it concludes to S3 and the GuardDuty set once started, with no other code', async () => {
    const bucket = await bucketOfThisRun('configured');
    const trojan = new ThreatClient({
      sources: ['feed_urls'],
      // The blocklist alone concludes a threat (the default, defensive strategy wants several sources to agree).
      strategy: 'aggressive',
      apiKeys: { feed_urls: feeds.apiKeys.feed_urls },
      lists: [{ name: 'blocklist', file: blocklist }],
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        cloud: {
          region: 'us-east-1',
          credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
          s3Endpoint: MOTO,
          guardDutyEndpoint: guardDutyServer.url,
          forcePathStyle: true,
          threatList: { bucket, key: 'threatlib/threats.txt', name: 'threatlib', minConfidence: 80 },
        },
      },
    });
    running.push(trojan);
    await trojan.start();

    const verdict = await trojan.correlate('198.51.100.23');
    expect(verdict.isThreat).toBe(true);
    expect(verdict.confidence).toBeGreaterThanOrEqual(80);
    await eventually(() => guardDutyServer.guardDuty.threatIntelSets().length === 1, 'the GuardDuty set');
    expect(guardDutyServer.guardDuty.threatIntelSets()[0]).toMatchObject({
      name: 'threatlib',
      location: s3Location(bucket, 'threatlib/threats.txt'),
    });
    expect(await objectText(bucket, 'threatlib/threats.txt')).toBe('198.51.100.23\n');
  });
});

// The cloud SIEM integration of the same sections: `CloudSiemIntegration` constructed with {subscriptionId,
// resourceGroupName, workspaceName, credentials: a credential object} and `createIndicator({pattern, labels,
// confidence, threatTypes})` as written. Sentinel is @threatlib/cloud-emulator's, over HTTPS with a CA this process
// trusts; the credential is @azure/identity's real ClientSecretCredential signing in to its Entra ID authority. The
// only additions to the documented options are the emulator's address: `authorityHost` (with
// `disableInstanceDiscovery`) for the credential, and `endpoints` for the upload API and Azure Resource Manager.
describe('4.2 CloudSiemIntegration (Sentinel on the emulator)', () => {
  it('runs createIndicator({pattern, labels, confidence, threatTypes}) as written: a STIX 2.1 indicator in the workspace', async () => {
    const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } =
      sentinelServer.sentinel.config;
    const sentinel = new CloudSiemIntegration({
      subscriptionId,
      resourceGroupName: resourceGroup,
      workspaceName,
      credentials: new ClientSecretCredential(tenantId, clientId, clientSecret, {
        authorityHost: sentinelServer.url,
        disableInstanceDiscovery: true,
      }),
      endpoints: { threatIntelligence: sentinelServer.url, resourceManager: sentinelServer.url },
    });
    running.push(sentinel);

    await sentinel.createIndicator({
      pattern: "[ipv4-addr:value = '192.168.1.100']",
      labels: ['malicious-activity'],
      confidence: 85,
      threatTypes: ['malware'],
    });

    expect([...sentinelServer.sentinel.objects.values()].map((o) => o.object)).toMatchObject([
      {
        type: 'indicator',
        spec_version: '2.1',
        pattern: "[ipv4-addr:value = '192.168.1.100']",
        pattern_type: 'stix',
        labels: ['malicious-activity'],
        confidence: 85,
        indicator_types: ['malware'],
      },
    ]);
  });

  it('a client constructed with integrations.cloudSiem publishes the threat it concludes, with no other code', async () => {
    const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } =
      sentinelServer.sentinel.config;
    const trojan = new ThreatClient({
      sources: ['feed_urls'],
      strategy: 'aggressive',
      apiKeys: { feed_urls: feeds.apiKeys.feed_urls },
      lists: [{ name: 'blocklist', file: blocklist }],
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        cloudSiem: {
          subscriptionId,
          resourceGroupName: resourceGroup,
          workspaceName,
          credentials: { tenantId, clientId, clientSecret, authorityHost: sentinelServer.url },
          endpoints: { threatIntelligence: sentinelServer.url, resourceManager: sentinelServer.url },
          minConfidence: 80,
          batchIntervalMs: 50,
        },
      },
    });
    running.push(trojan);
    await trojan.start();

    const verdict = await trojan.correlate('malicious-site.com');
    expect(verdict.isThreat).toBe(true);
    await eventually(() => sentinelServer.sentinel.objects.size === 1, 'the Sentinel indicator');
    expect([...sentinelServer.sentinel.objects.values()][0]?.object).toMatchObject({
      pattern: "[domain-name:value = 'malicious-site.com']",
      indicator_types: ['malicious-activity'],
      confidence: Math.round(verdict.confidence),
    });
  });
});
