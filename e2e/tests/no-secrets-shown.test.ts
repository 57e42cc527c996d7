// Issue 21, finding 9, across every package: each public class of every entry, made with a distinctive secret in
// every credential option it takes, and the objects it makes once started against the e2e servers and emulators,
// shows none of those secrets (nor their base64, hex or URL-encoded forms) through JSON.stringify, util.inspect
// (depth Infinity), String() or a walk of its enumerable properties. So does every error thrown from a configuration
// that holds secrets. The list of classes is read from the entries themselves: the last test fails when an entry
// exports a class (or a factory) this file neither checks nor says holds no credential.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ClientSecretCredential } from '@azure/identity';
import * as cloud from '@threatlib/cloud';
import {
  type RunningGuardDutyEmulator,
  type RunningSentinelEmulator,
  startGuardDutyEmulator,
  startSentinelEmulator,
} from '@threatlib/cloud-emulator';
import type { ThreatClient, ThreatConfig } from '@threatlib/core';
import * as core from '@threatlib/core';
import * as coreBrowser from '@threatlib/core/browser';
import * as coreCache from '@threatlib/core/cache';
import * as coreCli from '@threatlib/core/cli';
import * as coreFeeds from '@threatlib/core/feeds';
import * as coreHttpServer from '@threatlib/core/http-server';
import * as coreIntegration from '@threatlib/core/integration';
import * as coreLists from '@threatlib/core/lists';
import * as coreLogging from '@threatlib/core/logging';
import * as coreMetrics from '@threatlib/core/metrics';
import * as coreMisp from '@threatlib/core/misp';
import * as coreTesting from '@threatlib/core/testing';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import * as queue from '@threatlib/queue';
import * as server from '@threatlib/server';
import * as siem from '@threatlib/siem';
import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import * as storage from '@threatlib/storage';
import * as webhooks from '@threatlib/webhooks';
import * as webhooksNetwork from '@threatlib/webhooks/network';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWith, type Receiver, servicePort, startReceiver, uniqueName } from './interface/support.js';

/** Every entry a user imports from. */
const ENTRIES: Record<string, Record<string, unknown>> = {
  '@threatlib/core': core,
  '@threatlib/core/browser': coreBrowser,
  '@threatlib/core/cache': coreCache,
  '@threatlib/core/cli': coreCli,
  '@threatlib/core/feeds': coreFeeds,
  '@threatlib/core/http-server': coreHttpServer,
  '@threatlib/core/integration': coreIntegration,
  '@threatlib/core/lists': coreLists,
  '@threatlib/core/logging': coreLogging,
  '@threatlib/core/metrics': coreMetrics,
  '@threatlib/core/misp': coreMisp,
  '@threatlib/core/testing': coreTesting,
  '@threatlib/server': server,
  '@threatlib/siem': siem,
  '@threatlib/storage': storage,
  '@threatlib/webhooks': webhooks,
  '@threatlib/webhooks/network': webhooksNetwork,
  '@threatlib/queue': queue,
  '@threatlib/cloud': cloud,
};

/** One secret per credential option (none a part of another), so a leak names the option it came from. */
const S = {
  otxKey: 'otx-key-Q4m8Xv2Lp6Rw',
  scanKey: 'scan-key-T9n3Hk7Bc1Zy',
  abuseKey: 'abuse-key-F5d2Wq8Js4Ne',
  redisPassword: 'redis-pw-K7r1Yc5Mv9Gt',
  logHeader: 'log-header-P3x6Bn2Qw8Lk',
  alertHeader: 'alert-header-V8c4Nz1Ht5Rm',
  smtpPassword: 'smtp-pw-J2g9Ld6Sx3Fq',
  forwarderHeader: 'forwarder-header-W6b1Tk4Yp7Dc',
  jwtSecret: 'jwt-secret-M5q8Rf2Gv6Nz-long-enough-for-hs256',
  oauthSecret: 'oauth-secret-Z1w7Kc3Pd9Hx',
  apiToken: 'api-token-B4t6Xm8Lq2Jv',
  hmacSecret: 'hmac-secret-C9y3Vg5Rn1Wk',
  outgoingSecret: 'outgoing-secret-H2p7Fz4Mb8Qs',
  outgoingHeader: 'outgoing-header-N6k1Dw9Tc3Yg',
  siemPassword: 'siem-pw-R8v2Jq6Hx4Lb',
  siemToken: 'siem-token-G3m9Ys1Kp7Cz',
  hecToken: 'hec-token-X5d8Wn2Bv6Qt',
  mongoPassword: 'mongo-pw-L1h4Tr7Fc9Mk',
  amqpPassword: 'amqp-pw-Y7q3Gz5Nx1Dp',
  esPassword: 'es-pw-V2k8Pc4Rw6Hj',
  esApiKey: 'es-api-key-T6n1Bq9Lz3Xf',
  awsAccessKeyId: 'AKIAE2ENOSHOW7TEST01',
  awsSecret: 'aws-secret-D4x9Km2Vq7Nc5Lw8Hb3Zr6Tp1Gy',
  awsSessionToken: 'aws-session-J8f3Rz6Cw1Xm',
  azureSecret: 'azure-secret-Q2b7Lt5Yh9Vd',
  vaultPassword: 'vault-pw-C5w2Mx8Kn4Rg',
  storageKey: 'storage-key-E3j7Qv1Ws5Bn',
};
const SECRETS = Object.values(S);
/** What the e2e servers and emulators take as credentials, which the started objects hold. */
const SERVICE_SECRETS = [
  'threatlib-e2e-password', // Elasticsearch (e2e/services.d/elasticsearch.sh)
  'guest:guest', // RabbitMQ's guest user: its password after its name
  SPLUNK_DEFAULTS.password,
  SPLUNK_DEFAULTS.hecToken,
];

/** The names of the classes and factories checked, as they are checked. */
const checked = new Set<string>();
/** The integration factories: what the client calls at start() for integrations configured by name. */
const SERVICE_ONLY = [
  'createSiemIntegration',
  'createWebhooksIntegration',
  'createStorageIntegration',
  'createMessageQueueIntegration',
  'createCloudIntegration',
  'createCloudSiemIntegration',
  'createSiemForwarderIntegration',
];
/** Whether the block against the e2e servers ran (it is skipped without them unless THREATLIB_E2E is set). */
let servicesRan = false;

/** Checks `value` and records `name` (an exported class or factory) as covered. */
function shown(name: string, value: unknown, secrets: readonly string[] = SECRETS): void {
  coreTesting.expectNoSecretShown(name, value, secrets);
  checked.add(name);
}

/** The error `attempt` throws or rejects with, which must be one. */
async function failure(attempt: () => unknown): Promise<Error> {
  try {
    await attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error('expected a failure');
}

/** What an application with every package installed gives the client: the packages, imported here. */
const PACKAGES: Record<string, unknown> = {
  '@threatlib/siem': siem,
  '@threatlib/storage': storage,
  '@threatlib/webhooks': webhooks,
  '@threatlib/queue': queue,
  '@threatlib/cloud': cloud,
};
const application: core.ThreatClientOptions = {
  env: false,
  logger: core.silentLogger,
  loadIntegrationPackage: async (name) => (PACKAGES[name] ?? import(name)) as never,
};

/** A client configuration with every credential option the schema has, each with its own secret. */
function everySecret(authentication: NonNullable<ThreatConfig['security']>['authentication']): ThreatConfig {
  return {
    sources: ['feed_urls', 'feed_otx', 'feed_scan', 'feed_abuse'],
    apiKeys: { feed_otx: S.otxKey, feed_scan: { key: S.scanKey, timeout: 5_000 }, feed_abuse: S.abuseKey },
    security: { enforceHttps: false, authentication },
    caching: { enabled: true, type: 'kvserver', kvserver: { host: '127.0.0.1', port: 1, password: S.redisPassword } },
    logging: {
      enabled: true,
      level: 'error',
      transports: [{ type: 'webhook', url: 'https://logs.example/ingest', headers: { 'X-Log-Key': S.logHeader } }],
    },
    enterprise: {
      siemIntegration: {
        enabled: false,
        endpoint: 'https://siem.example/events',
        headers: { Authorization: `Splunk ${S.forwarderHeader}` },
      },
      monitoring: {
        alerts: {
          email: {
            from: 'threatlib@example.com',
            to: ['soc@example.com'],
            smtp: { host: 'smtp.example.com', user: 'threatlib', password: S.smtpPassword },
          },
          webhook: { url: 'https://alerts.example/hook', headers: { 'X-Alert-Key': S.alertHeader } },
        },
      },
    },
    integrations: {
      siem: { platform: 'siem_a', host: 'siem.example', credentials: { username: 'admin', password: S.siemPassword } },
      webhooks: {
        incoming: { authentication: { type: 'hmac', secret: S.hmacSecret } },
        outgoing: [
          {
            name: 'soc',
            url: 'https://soc.example/hook',
            events: ['high-confidence-threat'],
            headers: { Authorization: `Bearer ${S.outgoingHeader}` },
            secret: S.outgoingSecret,
          },
        ],
      },
      storage: { type: 'mongodb', uri: `mongodb://threatlib:${S.mongoPassword}@db.example/intel`, database: 'intel' },
      messageQueue: { type: 'rabbitmq', connection: `amqp://threatlib:${S.amqpPassword}@mq.example` },
      cloud: {
        region: 'us-east-1',
        credentials: {
          accessKeyId: S.awsAccessKeyId,
          secretAccessKey: S.awsSecret,
          sessionToken: S.awsSessionToken,
        },
      },
      cloudSiem: {
        subscriptionId: '00000000-0000-4000-8000-000000000001',
        resourceGroupName: 'rg',
        workspaceName: 'intel',
        credentials: {
          tenantId: '00000000-0000-4000-8000-000000000002',
          clientId: '00000000-0000-4000-8000-000000000003',
          clientSecret: S.azureSecret,
        },
      },
    },
  } as ThreatConfig;
}

const AUTHENTICATIONS = [
  { type: 'jwt', secret: S.jwtSecret },
  {
    type: 'oauth2',
    tokenEndpoint: 'https://idp.example/oauth2/token',
    clientId: 'threatlib',
    clientSecret: S.oauthSecret,
    scopes: ['threat-intel:read'],
  },
] as const;

const stoppable: Array<{ stop(): unknown } | { close(): unknown }> = [];
afterAll(async () => {
  for (const item of stoppable.splice(0).reverse()) {
    await ('stop' in item ? item.stop() : item.close());
  }
});

describe('made with a secret in every credential option, not started', () => {
  it('ThreatClient, its config, and what createVault resolves to', async () => {
    for (const authentication of AUTHENTICATIONS) {
      const client = new core.ThreatClient(everySecret(authentication as never), application);
      stoppable.push(client);
      shown('ThreatClient', client);
      shown('ThreatClient', client.config);
      shown('createClientMetrics', coreMetrics.createClientMetrics(client));
      // Integrations registered on it (not started: their servers are not there).
      const other = new core.ThreatClient({ sources: ['feed_urls'] }, application);
      shown(
        'registerWebhooks',
        webhooks.registerWebhooks(other, {
          incoming: { authentication: { type: 'hmac', secret: S.hmacSecret } },
        }),
      );
      shown(
        'registerMessageQueue',
        queue.registerMessageQueue(other, {
          type: 'rabbitmq',
          connection: `amqp://threatlib:${S.amqpPassword}@mq.example`,
        }),
      );
      // Integration classes registered by hand, as an application does without the configuration.
      shown(
        'SiemIntegration',
        other.registerIntegration('siem', siem.SiemIntegration, {
          platform: 'siem_b',
          host: 'siem.example',
          credentials: { token: S.siemToken },
        }),
      );
      shown(
        'StorageIntegration',
        other.registerIntegration('storage', storage.StorageIntegration, {
          type: 'mongodb',
          uri: `mongodb://threatlib:${S.mongoPassword}@db.example/intel`,
          database: 'intel',
        }),
      );
      shown(
        'CloudThreatListIntegration',
        other.registerIntegration('cloud', cloud.CloudThreatListIntegration, {
          region: 'us-east-1',
          credentials: { accessKeyId: S.awsAccessKeyId, secretAccessKey: S.awsSecret },
          threatList: { bucket: 'threat-lists', key: 'threats.txt', name: 'threatlib' },
        }),
      );
      shown('WebhooksIntegration', other.integration('webhooks'));
      shown('MessageQueueIntegration', other.integration('messageQueue'));
      const processor = other.integration('messageQueue')?.processor as queue.MessageQueueProcessor;
      shown('createIndicatorPipeline', queue.createIndicatorPipeline(other, processor));
      shown('ThreatClient', other);
    }
    const made = await core.ThreatClient.createVault(
      S.vaultPassword,
      { feed_otx: S.otxKey, feed_scan: { key: S.scanKey, timeout: 5_000 } },
      {
        config: { security: { autoLock: false, encryption: { keyDerivation: 'pbkdf2', iterations: 1_000 } } },
        clientOptions: { env: false, logger: core.silentLogger },
      },
    );
    stoppable.push(made.client);
    shown('Vault', made);
    made.vault.lock();
    shown('Vault', made.vault);
  });

  it("core's caches, transports, logger, token source and HTTP client", async () => {
    const kv = new coreCache.KvServerCache({ port: 1, password: S.redisPassword });
    shown('KvServerCache', kv);
    const caching = core.parseConfig({
      sources: ['feed_urls'],
      caching: { enabled: true, type: 'kvserver', kvserver: { password: S.redisPassword } },
    }).caching;
    const cache = coreCache.createCache(caching);
    shown('createCache', cache);
    const transport = new coreLogging.WebhookTransport({
      url: 'https://logs.example/ingest',
      headers: { Authorization: `Bearer ${S.logHeader}` },
    });
    shown('WebhookTransport', transport);
    const logging = core.parseConfig({
      sources: ['feed_urls'],
      logging: {
        transports: [
          { type: 'webhook', url: 'https://logs.example/ingest', headers: { Authorization: `Bearer ${S.logHeader}` } },
        ],
      },
    }).logging;
    const logger = coreLogging.createLogger(logging);
    shown('createLogger', logger);
    const http = coreIntegration.createHttpClient({});
    shown('createHttpClient', http);
    shown(
      'createOAuth2TokenSource',
      coreIntegration.createOAuth2TokenSource({
        tokenEndpoint: 'https://idp.example/oauth2/token',
        clientId: 'threatlib',
        clientSecret: () => S.oauthSecret,
        http,
      }),
    );
    await Promise.all([kv.close(), cache?.close(), transport.close(), coreLogging.closeLogger(logger), http.close()]);
  });

  it("a page's cache and alert store, encrypted with a storage key (@threatlib/core/browser)", async () => {
    const storage = { type: 'memory', encryptionKey: S.storageKey, keyDerivationIterations: 1000 } as const;
    const cache = new coreBrowser.BrowserCache(storage);
    await cache.start();
    await cache.set('feed_otx:ipv4:198.51.100.7', { verdict: 'malicious' }, 60_000);
    shown('BrowserCache', cache);
    const alerts = new coreBrowser.BrowserAlertStore(storage);
    await alerts.add({ title: 'stored', severity: 'low' });
    shown('BrowserAlertStore', alerts);
    await Promise.all([cache.close(), alerts.close()]);
  });

  it('the server and its authenticator', () => {
    const api = new server.APIServer({ port: 0, authentication: { type: 'bearer', tokens: [S.apiToken] } });
    api.mount('/api/v1', new core.ThreatClient(everySecret(AUTHENTICATIONS[0] as never), application));
    shown('APIServer', api);
    shown(
      'Authenticator',
      new server.Authenticator(
        { type: 'bearer', tokens: [S.apiToken] },
        { type: 'jwt', secret: S.jwtSecret },
        { enforceHttps: false },
      ),
    );
  });

  it('SIEM connectors of every platform, and the forwarder', async () => {
    const platformOptions: Record<string, Record<string, unknown>> = {
      siem_a: { hec: { token: S.hecToken } },
      siem_d: {
        tenantId: '00000000-0000-4000-8000-000000000002',
        dataCollectionRuleId: 'dcr-00000000000000000000000000000000',
        workspaceId: '00000000-0000-4000-8000-000000000004',
      },
      siem_e: { project: 'intel', location: 'us', instance: '00000000-0000-4000-8000-000000000005' },
    };
    for (const platform of siem.PLATFORM_IDS) {
      for (const credentials of [{ username: 'admin', password: S.siemPassword }, { token: S.siemToken }]) {
        const options = { platform, host: 'siem.example', credentials, ...platformOptions[platform] };
        try {
          shown('SIEMConnector', new siem.SIEMConnector(options as siem.SiemConnectorOptions));
        } catch (error) {
          shown(`${platform} refusing ${Object.keys(credentials).join('+')}`, error);
        }
      }
    }
    const forwarder = new siem.SiemForwarder(
      {
        enabled: true,
        endpoint: `https://siem.example/events?token=${S.siemToken}`,
        format: 'cef',
        headers: { Authorization: `Splunk ${S.forwarderHeader}` },
      },
      { optionsPath: 'enterprise.siemIntegration', enforceHttps: true, validateCertificates: true },
    );
    shown('SiemForwarder', forwarder);
    await forwarder.stop();
  });

  it('the stores, the queue processor and the webhook manager', async () => {
    const document = new storage.DocumentStoreStorage({
      uri: `mongodb://threatlib:${S.mongoPassword}@db.example/intel`,
      database: 'intel',
      collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
    });
    shown('DocumentStoreStorage', document);
    shown('DocumentStoreStorage', document.webhookOutbox('soc'));
    await document.stop();
    for (const auth of [{ username: 'threatlib', password: S.esPassword }, { apiKey: S.esApiKey }]) {
      const search = new storage.SearchIndexStorage({
        node: 'http://127.0.0.1:1',
        auth,
        indices: { threats: 'secrets-threats', campaigns: 'secrets-campaigns' },
      });
      shown('SearchIndexStorage', search);
      await search.stop();
    }
    const processor = new queue.MessageQueueProcessor({
      type: 'rabbitmq',
      connection: `amqps://threatlib:${S.amqpPassword}@mq.example:5671/intel`,
    });
    shown('MessageQueueProcessor', processor);
    const manager = new webhooks.WebhookManager({
      server: { port: 0 },
      authentication: { type: 'hmac', secret: [S.hmacSecret, S.outgoingSecret] },
    });
    // on() returns the manager: what a user logs after registering a handler.
    shown(
      'WebhookManager',
      manager.on('threat-update', async () => {}),
    );
    shown(
      'WebhookManager',
      manager.addOutgoing({
        name: 'soc',
        url: 'https://soc.example/hook',
        events: ['high-confidence-threat'],
        headers: { Authorization: `Bearer ${S.outgoingHeader}` },
        secret: S.outgoingSecret,
      }),
    );
  });

  it('the cloud integrations', async () => {
    const aws = new cloud.CloudIntegration({
      region: 'us-east-1',
      credentials: { accessKeyId: S.awsAccessKeyId, secretAccessKey: S.awsSecret, sessionToken: S.awsSessionToken },
    });
    shown('CloudIntegration', aws);
    shown('GuardDutyApi', aws.guardDuty);
    shown('S3Api', aws.s3);
    await aws.stop();
    const ids = {
      subscriptionId: '00000000-0000-4000-8000-000000000001',
      resourceGroupName: 'rg',
      workspaceName: 'intel',
    };
    const tenantId = '00000000-0000-4000-8000-000000000002';
    const clientId = '00000000-0000-4000-8000-000000000003';
    for (const credentials of [
      { tenantId, clientId, clientSecret: S.azureSecret },
      new ClientSecretCredential(tenantId, clientId, S.azureSecret),
    ]) {
      const sentinel = new cloud.CloudSiemIntegration({ ...ids, credentials });
      shown('CloudSiemIntegration', sentinel);
      await sentinel.stop();
    }
  });

  it('errors thrown from options and configurations holding secrets', { timeout: 60_000 }, async () => {
    const client = (config: object) => new core.ThreatClient(config as ThreatConfig, { env: false });
    const insecure = await failure(() =>
      client({
        sources: ['feed_urls'],
        logging: { transports: [{ type: 'webhook', url: `http://logs:${S.logHeader}@logs.example/` }] },
      }),
    );
    expect(insecure).toBeInstanceOf(core.InsecureEndpointError);
    shown('InsecureEndpointError', insecure);
    const invalid = await failure(() =>
      client({ sources: ['feed_urls'], apiKeys: { feed_otx: { key: S.otxKey, timeout: -1 } } }),
    );
    shown('ConfigurationError', invalid);
    shown(
      'ConfigurationError',
      await failure(
        () =>
          new queue.MessageQueueProcessor({
            type: 'rabbitmq',
            connection: `amqp://threatlib:${S.amqpPassword}@mq.example`,
            prefetch: -1,
          }),
      ),
    );
    // The broker's port refuses the connection at once.
    const refused = new queue.MessageQueueProcessor({
      type: 'rabbitmq',
      connection: `amqp://threatlib:${S.amqpPassword}@127.0.0.1:1`,
    });
    shown('QueueError', await failure(() => refused.start()));
    await refused.stop();
    const started = new core.ThreatClient(
      {
        sources: ['feed_urls'],
        integrations: {
          messageQueue: { type: 'rabbitmq', connection: `amqp://threatlib:${S.amqpPassword}@127.0.0.1:1` },
        },
      },
      application,
    );
    shown('IntegrationError', await failure(() => started.start()));
    const search = new storage.SearchIndexStorage({
      node: 'http://127.0.0.1:1',
      auth: { username: 'threatlib', password: S.esPassword },
      indices: { threats: 'secrets-threats' },
      retries: 0,
      requestTimeoutMs: 1_000,
    });
    shown('StorageError', await failure(() => search.start()));
    await search.stop();
    const forwarder = new siem.SiemForwarder(
      {
        enabled: true,
        endpoint: 'http://127.0.0.1:1/events',
        headers: { Authorization: `Splunk ${S.forwarderHeader}` },
      },
      { optionsPath: 'enterprise.siemIntegration', enforceHttps: false, validateCertificates: true },
    );
    const alert = coreIntegration.normaliseAlert({ title: 'secret test', severity: 'high' }, new Date());
    shown('SiemForwarderError', await failure(() => forwarder.sendAlert(alert)));
    await forwarder.stop();
    const token = coreIntegration.createOAuth2TokenSource({
      tokenEndpoint: 'http://127.0.0.1:1/token',
      clientId: 'threatlib',
      clientSecret: () => S.oauthSecret,
      http: coreIntegration.createHttpClient({}),
      enforceHttps: false,
    });
    shown('OAuth2TokenError', await failure(() => token.getToken()));
    shown(
      'VaultAuthError',
      await failure(async () => {
        const made = await core.ThreatClient.createVault(
          S.vaultPassword,
          { feed_otx: S.otxKey },
          {
            config: { security: { autoLock: false, encryption: { keyDerivation: 'pbkdf2', iterations: 1_000 } } },
            clientOptions: { env: false, logger: core.silentLogger },
          },
        );
        await made.client.stop();
        await made.vault.unlock(`${S.vaultPassword}-wrong`);
      }),
      [...SECRETS, `${S.vaultPassword}-wrong`],
    );
  });
});

describeWith(
  ['elasticsearch', 'rabbitmq', 'moto'],
  'started against the e2e servers and emulators, after they did their work',
  () => {
    let feeds: FeedEmulator;
    let siemEmulator: RunningSiemEmulator;
    let guardDuty: RunningGuardDutyEmulator;
    let sentinel: RunningSentinelEmulator;
    let receiver: Receiver;
    let bucket: string;
    const AWS_KEYS = { accessKeyId: S.awsAccessKeyId, secretAccessKey: S.awsSecret };
    const queues = {
      incoming: uniqueName('secrets-in'),
      processed: uniqueName('secrets-out'),
      alerts: uniqueName('secrets-alerts'),
    };
    const index = uniqueName('secrets').replaceAll('.', '-').toLowerCase();

    beforeAll(async () => {
      feeds = await startFeedEmulator();
      siemEmulator = await startSiemEmulator();
      guardDuty = await startGuardDutyEmulator({ keys: [{ ...AWS_KEYS }] });
      sentinel = await startSentinelEmulator();
      receiver = await startReceiver();
      bucket = uniqueName('secrets').replaceAll('.', '-').toLowerCase().slice(0, 63);
      const s3 = new S3Client({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${servicePort('moto')}`,
        forcePathStyle: true,
        credentials: { ...AWS_KEYS },
      });
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      s3.destroy();
    });
    afterAll(async () => {
      await Promise.all([
        feeds?.close(),
        siemEmulator?.close(),
        guardDuty?.close(),
        sentinel?.close(),
        receiver?.close(),
      ]);
      await fetch(`http://127.0.0.1:${servicePort('elasticsearch')}/threatlib-test-${index}-*`, {
        method: 'DELETE',
        headers: { authorization: `Basic ${Buffer.from('threatlib:threatlib-e2e-password').toString('base64')}` },
      }).catch(() => undefined);
    });

    it('a client with every integration, after lookups, alerts and deliveries, and the server it is mounted on', {
      timeout: 120_000,
    }, async () => {
      const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } =
        sentinel.sentinel.config;
      const client: ThreatClient = new core.ThreatClient(
        {
          sources: ['feed_otx', 'feed_scan'],
          strategy: 'aggressive',
          apiKeys: {
            feed_otx: { key: S.otxKey, endpoint: feeds.endpoints.feed_otx },
            feed_scan: { key: S.scanKey, endpoint: feeds.endpoints.feed_scan },
          },
          security: { enforceHttps: false, authentication: { type: 'jwt', secret: S.jwtSecret } },
          logging: {
            enabled: true,
            level: 'error',
            transports: [{ type: 'webhook', url: `${receiver.url}/logs`, headers: { 'X-Log-Key': S.logHeader } }],
          },
          enterprise: {
            siemIntegration: {
              enabled: true,
              endpoint: `${receiver.url}/events`,
              format: 'json',
              headers: { Authorization: `Splunk ${S.forwarderHeader}` },
            },
          },
          integrations: {
            siem: {
              platform: 'siem_a',
              host: siemEmulator.host,
              port: siemEmulator.port,
              credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
              hec: { port: siemEmulator.port },
              tls: { ca: TEST_CA },
            },
            webhooks: {
              incoming: { server: { port: 0 }, authentication: { type: 'hmac', secret: S.hmacSecret } },
              outgoing: [
                {
                  name: 'soc',
                  url: `${receiver.url}/hook`,
                  events: ['high-confidence-threat'],
                  headers: { Authorization: `Bearer ${S.outgoingHeader}` },
                  secret: S.outgoingSecret,
                },
              ],
              delivery: { allowPrivateNetworks: true, outbox: { directory: join(tmpdir(), `${index}-outbox`) } },
            },
            storage: {
              type: 'elasticsearch',
              node: `http://127.0.0.1:${servicePort('elasticsearch')}`,
              auth: { username: 'threatlib', password: 'threatlib-e2e-password' },
              indices: {
                threats: `threatlib-test-${index}-threats`,
                campaigns: `threatlib-test-${index}-campaigns`,
                indicators: `threatlib-test-${index}-indicators`,
                alerts: `threatlib-test-${index}-alerts`,
              },
            },
            messageQueue: {
              type: 'rabbitmq',
              connection: `amqp://guest:guest@127.0.0.1:${servicePort('rabbitmq')}`,
              queues,
            },
            cloud: {
              region: 'us-east-1',
              // A copy: the AWS SDK writes into the credentials object it is given.
              credentials: { ...AWS_KEYS },
              guardDutyEndpoint: guardDuty.url,
              s3Endpoint: `http://127.0.0.1:${servicePort('moto')}`,
              forcePathStyle: true,
              maxAttempts: 1,
              threatList: { bucket, key: 'threats.txt', name: 'threatlib' },
            },
            cloudSiem: {
              subscriptionId,
              resourceGroupName: resourceGroup,
              workspaceName,
              credentials: { tenantId, clientId, clientSecret, authorityHost: sentinel.url },
              endpoints: { threatIntelligence: sentinel.url, resourceManager: sentinel.url },
            },
          },
        },
        application,
      );
      stoppable.push(client);
      const api = new server.APIServer({
        port: 0,
        authentication: { type: 'bearer', tokens: [S.apiToken] },
        webhooks: client.integration('webhooks')?.manager,
      });
      const started = [...SECRETS, ...SERVICE_SECRETS, clientSecret];
      await client.start();
      api.mount('/api/v1', client);
      stoppable.push(api);
      await api.start();
      await client.scout('198.51.100.7');
      const alert = await client.alerts.add({
        title: 'secret test',
        severity: 'high',
        indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 95 }],
      });
      expect(alert.id).toBeTruthy();
      await client.alerts.settled();
      // The alert went out through the SIEM, the forwarder and the outgoing webhook, with their credentials.
      await receiver.until(
        (requests) => ['/events', '/hook'].every((path) => requests.some((request) => request.url === path)),
        'the forwarded event and the outgoing webhook',
      );
      expect(siemEmulator.splunk.events.length).toBeGreaterThan(0);
      const answer = await fetch(`${api.address}/api/v1/feeds/status`, {
        headers: { authorization: `Bearer ${S.apiToken}` },
      });
      expect(answer.status).toBe(200);

      shown('ThreatClient', client, started);
      shown('APIServer', api, started);
      const integrations = {
        siem: 'SiemIntegration',
        webhooks: 'WebhooksIntegration',
        storage: 'StorageIntegration',
        messageQueue: 'MessageQueueIntegration',
        cloud: 'CloudThreatListIntegration',
        cloudSiem: 'CloudSiemIntegration',
        siemForwarder: 'SiemForwarder',
      } as const;
      for (const [name, className] of Object.entries(integrations)) {
        const integration = client.integration(name);
        expect(integration, name).toBeDefined();
        shown(className, integration, started);
      }
      // The factories are what built them.
      for (const factory of SERVICE_ONLY) checked.add(factory);
      servicesRan = true;
      shown('SearchIndexStorage', client.integration('storage')?.storage, started);
      shown('WebhookManager', client.integration('webhooks')?.manager, started);
      shown('MessageQueueProcessor', client.integration('messageQueue')?.processor, started);
      shown('CloudIntegration', client.integration('cloud')?.cloud, started);
      shown('SIEMConnector', client.integration('siem')?.connector, started);
    });
  },
);

/**
 * Exported classes and factories that take no credential, with what they are: nothing in them to redact. Errors are
 * here when nothing secret reaches them; those thrown from options with secrets are checked above.
 */
const HOLDS_NO_CREDENTIALS: Record<string, string> = {
  // @threatlib/core
  CacheError: 'an error naming the cache back end',
  CampaignTracker: 'indicators grouped into campaigns',
  HttpError: 'an error with the failure kind and the URL (redacted by the HTTP client)',
  InvalidIndicatorError: 'an error quoting the indicator',
  ListLoadError: 'an error naming a list file',
  MemoryAlertStore: 'alerts',
  RateLimitError: 'an error naming a feed and its quota window',
  ThreatlibError: 'the base error: a code and a message',
  ValidationError: 'an error naming the invalid fields of a record',
  VaultCorruptError: 'an error naming the vault file and the damaged field',
  VaultLockedError: 'an error naming the feeds whose keys are locked',
  // @threatlib/core/cache
  FileCache: 'a directory of cached answers',
  MemoryCache: 'cached answers',
  // @threatlib/core/browser
  BrowserStorageError: 'an error naming the storage type and database, never the encryption key',
  InsecureContextError: "an error naming the page's origin",
  // @threatlib/core/integration
  CircuitBreaker: 'failure counts',
  EventBus: 'listeners',
  FeedScheduler: 'queued lookups',
  // @threatlib/core/lists
  LocalList: 'list entries',
  StixIndicatorList: 'STIX indicators taken in (a TAXII source holds its credentials, not the list)',
  // @threatlib/core/logging
  FileTransport: 'a log file path',
  SyslogTransport: 'a syslog host and port',
  createGuardedAgent: 'an HTTP agent checking addresses (no credentials)',
  // @threatlib/core/testing
  ManualClock: 'a test clock',
  // @threatlib/server
  ProblemError: 'an RFC 9457 problem answer',
  ServerMetrics: 'request counters',
  // @threatlib/siem
  EventFormatError: 'an error naming a field that cannot be written',
  SiemAuthenticationError: "an error with the SIEM's reason, scrubbed of the connector's credentials",
  SiemError: "an error with the SIEM's reason, scrubbed of the connector's credentials",
  SiemRequestError: "an error with the SIEM's reason, scrubbed of the connector's credentials",
  SiemTimeoutError: 'an error with the timeout',
  SiemUnreachableError: 'an error with host:port',
  SiemUnsupportedError: 'an error naming an operation a platform lacks',
  // @threatlib/storage
  DocumentRejectedError: "an error with Elasticsearch's reason for a document",
  // @threatlib/webhooks
  FileOutbox: 'a directory of pending deliveries (bodies, no headers)',
  WebhookError: 'an error naming the webhook operation',
  webhooksPlugin: "a fastify plugin taking a manager (the manager's own view is checked)",
  // @threatlib/webhooks/network
  AddressPolicy: 'which address ranges are allowed',
  BlockedAddressError: 'an error naming a refused address',
  // @threatlib/queue
  ProduceBatcher: 'records waiting for a Kafka batch',
  UnprocessableMessageError: 'an error naming a message that cannot be handled',
  // @threatlib/cloud
  CloudError: "an error with AWS's or Azure's reason, scrubbed of the integration's keys",
};

it('every exported class and factory is checked above or holds no credential', () => {
  const isClass = (value: unknown) =>
    typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
  const exported = new Set<string>();
  for (const module of Object.values(ENTRIES)) {
    for (const [name, value] of Object.entries(module)) {
      // Classes, and the functions that make or register an object that may hold options.
      if (isClass(value) || (typeof value === 'function' && /^(create|register)|Plugin$/.test(name))) {
        exported.add(name);
      }
    }
  }
  // Without the e2e servers (THREATLIB_E2E unset, the block above skipped) the factories were not run.
  const excused = servicesRan ? [] : SERVICE_ONLY;
  const unaccounted = [...exported].filter(
    (name) => !checked.has(name) && !(name in HOLDS_NO_CREDENTIALS) && !excused.includes(name),
  );
  expect(unaccounted, 'exported but neither checked for secrets nor listed in HOLDS_NO_CREDENTIALS').toEqual([]);
  // A name listed as holding none must still exist (a renamed class is checked again).
  expect(Object.keys(HOLDS_NO_CREDENTIALS).filter((name) => !exported.has(name))).toEqual([]);
});
