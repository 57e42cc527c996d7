// Issue 21, finding 9: the cloud classes show no AWS access key, secret access key, session token or Azure client
// secret through JSON.stringify, util.inspect (depth Infinity), String() or a walk of enumerable properties:
// CloudIntegration and its guardDuty and s3 members (made, and after calls that signed requests with the keys),
// CloudSiemIntegration (with the configuration form of its credentials and with a credential object, after it got a
// token and created an indicator), and the integrations a client builds from integrations.cloud and cloudSiem.
import { ClientSecretCredential } from '@azure/identity';
import {
  type RunningGuardDutyEmulator,
  type RunningSentinelEmulator,
  startGuardDutyEmulator,
  startSentinelEmulator,
} from '@threatlib/cloud-emulator';
import { silentLogger, ThreatClient } from '@threatlib/core';
import { expectNoSecretShown } from '@threatlib/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudIntegration } from './aws/cloud-integration.js';
import { CloudSiemIntegration } from './azure/cloud-siem-integration.js';
import { describeWithMoto, freshBucket, MOTO_URL, motoS3 } from './test-support/moto.js';

const KEYS = { accessKeyId: 'AKIAQ7NOSHOW4TEST0001', secretAccessKey: 'aws-secret-2Lx8vQn4Rt6Yk1Hc9Pw3Zb7Md5Fg0Js' };
const SESSION_TOKEN = 'aws-session-token-6Ke1wVb9Nq4Tz8Rx';
const AWS_SECRETS = [KEYS.accessKeyId, KEYS.secretAccessKey, SESSION_TOKEN];
const application = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name: string) => (name === '@threatlib/cloud' ? import('./index.js') : import(name)),
} as const;

describe('CloudIntegration and its guardDuty and s3 members', () => {
  let guardDuty: RunningGuardDutyEmulator;
  beforeAll(async () => {
    guardDuty = await startGuardDutyEmulator({ keys: [KEYS] });
  });
  afterAll(async () => {
    await guardDuty.close();
  });

  it('made with an access key and a session token', async () => {
    const cloud = new CloudIntegration({ region: 'us-east-1', credentials: { ...KEYS, sessionToken: SESSION_TOKEN } });
    expectNoSecretShown('cloud', cloud, AWS_SECRETS);
    expectNoSecretShown('cloud.guardDuty', cloud.guardDuty, AWS_SECRETS);
    expectNoSecretShown('cloud.s3', cloud.s3, AWS_SECRETS);
    expect(JSON.parse(JSON.stringify(cloud))).toMatchObject({ region: 'us-east-1', credentials: '[redacted]' });
    await cloud.stop();
  });

  describeWithMoto('after signed calls (S3 on moto, GuardDuty on the emulator)', () => {
    it('putObject and createThreatIntelSet', async () => {
      const bucket = await freshBucket(motoS3(), 'secrets');
      const cloud = new CloudIntegration({
        region: 'us-east-1',
        credentials: KEYS,
        s3Endpoint: MOTO_URL,
        guardDutyEndpoint: guardDuty.url,
        forcePathStyle: true,
        maxAttempts: 1,
      });
      try {
        await cloud.s3.putObject({ Bucket: bucket, Key: 'threats.txt', Body: '198.51.100.7\n' });
        await cloud.guardDuty.createThreatIntelSet({
          name: 'threatlib',
          format: 'TXT',
          location: `https://s3.amazonaws.com/${bucket}/threats.txt`,
          activate: true,
        });
        expectNoSecretShown('cloud after calls', cloud, AWS_SECRETS);
        expectNoSecretShown('guardDuty after calls', cloud.guardDuty, AWS_SECRETS);
        expectNoSecretShown('s3 after calls', cloud.s3, AWS_SECRETS);
        const refused = await new CloudIntegration({
          region: 'us-east-1',
          credentials: { accessKeyId: KEYS.accessKeyId, secretAccessKey: `${KEYS.secretAccessKey}-wrong` },
          guardDutyEndpoint: guardDuty.url,
          maxAttempts: 1,
        }).guardDuty
          .listThreatIntelSets()
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(Error);
        expectNoSecretShown('refused signature', refused, [...AWS_SECRETS, `${KEYS.secretAccessKey}-wrong`]);
      } finally {
        await cloud.stop();
      }
    });

    it('the integration a client builds from integrations.cloud, started', async () => {
      const bucket = await freshBucket(motoS3(), 'secrets-client');
      const client = new ThreatClient(
        {
          sources: ['feed_urls'],
          security: { enforceHttps: false },
          integrations: {
            cloud: {
              region: 'us-east-1',
              credentials: KEYS,
              guardDutyEndpoint: guardDuty.url,
              s3Endpoint: MOTO_URL,
              forcePathStyle: true,
              maxAttempts: 1,
              threatList: { bucket, key: 'threats.txt', name: 'threatlib' },
            },
          },
        },
        application,
      );
      await client.start();
      try {
        expectNoSecretShown('cloud integration', client.integration('cloud'), AWS_SECRETS);
        expectNoSecretShown('started client', client, AWS_SECRETS);
      } finally {
        await client.stop();
      }
    });
  });
});

describe('CloudSiemIntegration', () => {
  let sentinel: RunningSentinelEmulator;
  beforeAll(async () => {
    sentinel = await startSentinelEmulator();
  });
  afterAll(async () => {
    await sentinel.close();
  });

  const INDICATOR = {
    pattern: "[ipv4-addr:value = '198.51.100.7']",
    labels: ['threatlib'],
    confidence: 90,
    threatTypes: ['malicious-activity'],
  };

  it('with {tenantId, clientId, clientSecret} and with a ClientSecretCredential, after it created an indicator', async () => {
    const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } = sentinel.sentinel.config;
    const common = {
      subscriptionId,
      resourceGroupName: resourceGroup,
      workspaceName,
      endpoints: { threatIntelligence: sentinel.url, resourceManager: sentinel.url },
    };
    const forms = [
      { tenantId, clientId, clientSecret, authorityHost: sentinel.url },
      new ClientSecretCredential(tenantId, clientId, clientSecret, {
        authorityHost: sentinel.url,
        disableInstanceDiscovery: true,
      }),
    ];
    for (const credentials of forms) {
      const integration = new CloudSiemIntegration({ ...common, credentials });
      try {
        expectNoSecretShown('cloudSiem', integration, [clientSecret]);
        await integration.createIndicator(INDICATOR);
        expectNoSecretShown('cloudSiem after a call', integration, [clientSecret]);
        expect(JSON.parse(JSON.stringify(integration))).toMatchObject({ workspaceName, credentials: '[redacted]' });
      } finally {
        await integration.stop();
      }
    }
    const client = new ThreatClient(
      {
        sources: ['feed_urls'],
        integrations: {
          cloudSiem: { ...common, credentials: { tenantId, clientId, clientSecret, authorityHost: sentinel.url } },
        },
      },
      application,
    );
    await client.start();
    try {
      expectNoSecretShown('cloudSiem integration of a client', client.integration('cloudSiem'), [clientSecret]);
      expectNoSecretShown('its client', client, [clientSecret]);
    } finally {
      await client.stop();
    }
  });
});
