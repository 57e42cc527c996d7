// Core's public objects, made with a distinctive secret in every credential option they take, show none of them
// through JSON.stringify, util.inspect (depth Infinity), String() or a walk of their enumerable properties: the
// client and its `config`, what `createVault` returns, the caches, the log transports and logger, the OAuth 2.0 token
// source (after it fetched a token), and the errors a configuration with secrets gets. e2e/tests/no-secrets-shown.test.ts
// does the same for every package's classes together.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache } from '../cache/create-cache.js';
import { KvServerCache } from '../cache/kvserver-cache.js';
import { configWithSecrets, ThreatClient } from '../client/threat-client.js';
import { parseConfig } from '../config/parse-config.js';
import type { ThreatConfig } from '../config/schema.js';
import { createHttpClient } from '../http/http-client.js';
import type { IntegrationContext } from '../integration/integration.js';
import { closeLogger, createLogger } from '../logging/create-logger.js';
import { silentLogger } from '../logging/logger.js';
import { SyslogTransport } from '../logging/transports/syslog-transport.js';
import { WebhookTransport } from '../logging/transports/webhook-transport.js';
import { createOAuth2TokenSource } from '../oauth2/client-credentials.js';
import { expectNoSecretShown } from './secret-leaks.test-suite.js';

/** One distinctive secret per credential option (none a substring of another). */
const SECRET = {
  otxKey: 'otx-key-7Qm2vX9wLp4R',
  scanKey: 'scan-key-3Hf8kTz1Nb6Y',
  redisPassword: 'redis-pw-5Jd0sWq7Ue2C',
  logToken: 'log-token-8Gx4pLm1Va9E',
  logUrlPassword: 'log-url-pw-2Bn6rYt3Kc8M',
  alertHeader: 'alert-header-6Ws1dFh9Zq3P',
  smtpPassword: 'smtp-pw-4Lk7eRu2Xj5T',
  forwarderHeader: 'forwarder-header-1Cv8bNm4Qa7S',
  jwtSecret: 'jwt-secret-9Tg3hKw6Ep1D',
  basicHash: '$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$basic-hash-0Yr5uIo8Pl2F',
  oauthSecret: 'oauth-secret-5Mn2cXz7Rb4W',
  accessToken: 'access-token-3Ds9fGh1Jk6L',
  siemPassword: 'siem-pw-8Qw4eRt2Yu7I',
  webhookSecret: 'webhook-secret-6Op3aSd9Fg1H',
  outgoingHeader: 'outgoing-header-2Jk8lZx5Cv3B',
  mongoPassword: 'mongo-pw-7Nm1qWe4Rt9Y',
  amqpPassword: 'amqp-pw-4Ui6oPa2Sd8F',
  awsSecret: 'aws-secret-1Gh7jKl3Zx5C',
  azureSecret: 'azure-secret-9Vb2nMq6We4R',
  vaultPassword: 'vault-pw-3Ty8uIo1Pa7S',
};
const SECRETS = Object.values(SECRET);

/** Every credential option of the client's configuration, each with its own secret. */
function configWithEverySecret(authentication: Authentication): ThreatConfig {
  return {
    sources: ['feed_urls', 'feed_otx', 'feed_scan'],
    apiKeys: {
      feed_otx: SECRET.otxKey,
      feed_scan: { key: SECRET.scanKey, timeout: 5_000 },
    },
    security: { authentication },
    caching: { enabled: true, type: 'kvserver', kvserver: { host: '127.0.0.1', password: SECRET.redisPassword } },
    logging: {
      enabled: true,
      level: 'error',
      transports: [
        {
          type: 'webhook',
          url: `https://logs:${SECRET.logUrlPassword}@logs.example/ingest`,
          headers: { Authorization: `Bearer ${SECRET.logToken}` },
        },
      ],
    },
    enterprise: {
      siemIntegration: {
        enabled: false,
        endpoint: 'https://siem.example/events',
        headers: { 'X-Splunk-Token': SECRET.forwarderHeader },
      },
      monitoring: {
        alerts: {
          email: {
            from: 'threatlib@example.com',
            to: ['soc@example.com'],
            smtp: { host: 'smtp.example.com', user: 'threatlib', password: SECRET.smtpPassword },
          },
          webhook: { url: 'https://alerts.example/hook', headers: { 'X-Alert-Key': SECRET.alertHeader } },
        },
      },
    },
    integrations: {
      siem: {
        platform: 'siem_a',
        host: 'siem.example',
        credentials: { username: 'threatlib', password: SECRET.siemPassword },
      },
      webhooks: {
        incoming: { authentication: { type: 'hmac', secret: SECRET.webhookSecret } },
        outgoing: [
          {
            name: 'soc',
            url: 'https://soc.example/hook',
            events: ['high-confidence-threat'],
            headers: { 'X-Soc-Key': SECRET.outgoingHeader },
          },
        ],
      },
      storage: { type: 'mongodb', uri: `mongodb://threatlib:${SECRET.mongoPassword}@db.example`, database: 'intel' },
      messageQueue: { type: 'rabbitmq', connection: `amqps://threatlib:${SECRET.amqpPassword}@mq.example` },
      cloud: { region: 'us-east-1', credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: SECRET.awsSecret } },
      cloudSiem: {
        subscriptionId: '00000000-0000-0000-0000-000000000001',
        resourceGroupName: 'rg',
        workspaceName: 'intel',
        credentials: {
          tenantId: '00000000-0000-0000-0000-000000000002',
          clientId: '00000000-0000-0000-0000-000000000003',
          clientSecret: SECRET.azureSecret,
        },
      },
    },
  } as ThreatConfig;
}

type Authentication = NonNullable<ThreatConfig['security']>['authentication'];

const AUTHENTICATIONS: Record<string, Authentication> = {
  basic: { type: 'basic', users: { analyst: SECRET.basicHash } },
  jwt: { type: 'jwt', secret: SECRET.jwtSecret },
  oauth2: {
    type: 'oauth2',
    tokenEndpoint: 'https://idp.example/oauth2/token',
    clientId: 'threatlib',
    clientSecret: SECRET.oauthSecret,
    scopes: ['threat-intel:read'],
  },
};

const clients: ThreatClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.stop()));
});

describe('ThreatClient shows no secret of its configuration', () => {
  for (const [type, authentication] of Object.entries(AUTHENTICATIONS)) {
    it(`with security.authentication ${type}: the client, its config and a started client`, async () => {
      const client = new ThreatClient(configWithEverySecret(authentication), { env: false, logger: silentLogger });
      clients.push(client);
      expectNoSecretShown('client', client, SECRETS);
      expectNoSecretShown('client.config', client.config, SECRETS);
      expectNoSecretShown('client.warnings', client.warnings, SECRETS);
      expectNoSecretShown('client.oauth2', client.oauth2, SECRETS);
      // The view is still the configuration: its shape, its non-secret values and which secrets are set.
      expect(client.config.apiKeys).toEqual({
        feed_otx: '[redacted]',
        feed_scan: { key: '[redacted]', timeout: 5000 },
      });
      expect(client.config.caching.kvserver).toMatchObject({ host: '127.0.0.1', password: '[redacted]' });
      expect(client.config.logging.transports[0]).toMatchObject({
        url: 'https://logs:[redacted]@logs.example/ingest',
        headers: { Authorization: '[redacted]' },
      });
      expect(client.config.integrations.storage).toMatchObject({ uri: 'mongodb://threatlib:[redacted]@db.example' });
      expect(JSON.parse(JSON.stringify(client))).toMatchObject({
        state: 'idle',
        sources: ['feed_urls', 'feed_otx', 'feed_scan'],
      });
      // What acts on the secrets still has them.
      expect(configWithSecrets(client).apiKeys.feed_otx).toBe(SECRET.otxKey);
    });
  }

  it("a plugin that keeps its context in a public field, as the interface's example does", async () => {
    class Plugin {
      readonly options: unknown;
      readonly context: IntegrationContext;
      constructor(options: unknown, context: IntegrationContext) {
        this.options = options;
        this.context = context;
      }
      async sendAlert(): Promise<void> {}
      async enrichIndicator(): Promise<undefined> {
        return undefined;
      }
    }
    const config = configWithEverySecret(AUTHENTICATIONS.oauth2);
    const client = new ThreatClient({ ...config, integrations: {} }, { env: false, logger: silentLogger });
    clients.push(client);
    const plugin = client.registerIntegration('plugin', Plugin, { endpoint: 'https://plugin.example' });
    expectNoSecretShown('plugin', plugin, SECRETS);
    // What the plugin reads is still the configuration with its secrets.
    expect(plugin.context.client.config.apiKeys.feed_otx).toBe(SECRET.otxKey);
  });

  it('a client started (no integrations: they need their servers), and one stopped', async () => {
    const config = configWithEverySecret(AUTHENTICATIONS.jwt);
    const client = new ThreatClient(
      { ...config, caching: { enabled: false }, logging: { enabled: false }, integrations: {} },
      { env: false, logger: silentLogger },
    );
    await client.start();
    expectNoSecretShown('started client', client, SECRETS);
    await client.stop();
    expectNoSecretShown('stopped client', client, SECRETS);
  });

  it('what createVault resolves to: the client, the vault and trojan, locked and unlocked', async () => {
    const made = await ThreatClient.createVault(
      SECRET.vaultPassword,
      { feed_otx: SECRET.otxKey, feed_scan: { key: SECRET.scanKey, timeout: 5_000 } },
      {
        config: { security: { autoLock: false, encryption: { keyDerivation: 'pbkdf2', iterations: 1_000 } } },
        clientOptions: { env: false, logger: silentLogger },
      },
    );
    clients.push(made.client);
    expectNoSecretShown('createVault result', made, SECRETS);
    expect(JSON.parse(JSON.stringify(made.vault))).toMatchObject({ locked: false, feeds: ['feed_otx', 'feed_scan'] });
    made.vault.lock();
    expectNoSecretShown('locked vault', made, SECRETS);
  });

  it('the errors a configuration holding secrets gets', () => {
    const refused: unknown[] = [];
    // Without a logger of its own, the client checks its log transports' URLs.
    const attempt = (config: object) => {
      try {
        clients.push(new ThreatClient(config as ThreatConfig, { env: false }));
      } catch (error) {
        refused.push(error);
      }
    };
    // An http URL while HTTPS is enforced, with a password in it; the same credentials with the scheme forgotten,
    // which the error quotes as what it got.
    attempt({
      sources: ['feed_urls'],
      logging: { transports: [{ type: 'webhook', url: `http://logs:${SECRET.logUrlPassword}@logs.example/` }] },
    });
    attempt({
      sources: ['feed_urls'],
      logging: { transports: [{ type: 'webhook', url: `logs:${SECRET.logUrlPassword}@logs.example/ingest` }] },
    });
    // A secret beside an option that is refused: browser storage with a bad database name.
    attempt({ sources: ['feed_urls'], storage: { encryptionKey: SECRET.redisPassword, dbName: '../x' } });
    attempt({ sources: ['feed_urls'], apiKeys: { feed_otx: { key: SECRET.otxKey, timeout: -1 } } });
    expect(refused).toHaveLength(4);
    // The malformed URL is still quoted, its password as [redacted].
    expect((refused[1] as Error).message).toContain('got "logs:[redacted]@logs.example/ingest"');
    for (const error of refused) expectNoSecretShown('configuration error', error, SECRETS);
  });
});

describe('caches, log transports and the logger show no password nor header value', () => {
  it('KvServerCache and createCache({type: "kvserver"})', async () => {
    const cache = new KvServerCache({ host: '127.0.0.1', port: 1, password: SECRET.redisPassword });
    expectNoSecretShown('KvServerCache', cache, SECRETS);
    expect(JSON.parse(JSON.stringify(cache))).toMatchObject({ address: '127.0.0.1:1', password: '[redacted]' });
    const caching = parseConfig({
      sources: ['feed_urls'],
      caching: { enabled: true, type: 'kvserver', kvserver: { password: SECRET.redisPassword } },
    }).caching;
    const made = createCache(caching);
    expectNoSecretShown('createCache', made, SECRETS);
    await cache.close();
    await made?.close();
  });

  it('WebhookTransport, SyslogTransport and a logger made with them', async () => {
    const webhook = new WebhookTransport({
      url: `https://logs:${SECRET.logUrlPassword}@logs.example/ingest`,
      headers: { Authorization: `Bearer ${SECRET.logToken}` },
    });
    expectNoSecretShown('WebhookTransport', webhook, SECRETS);
    expect(JSON.parse(JSON.stringify(webhook))).toMatchObject({ headers: { Authorization: '[redacted]' } });
    await webhook.close();
    const syslog = new SyslogTransport({ host: '127.0.0.1', port: 1, protocol: 'udp', facility: 'local0' });
    expectNoSecretShown('SyslogTransport', syslog, SECRETS);
    await syslog.close();
    const logger = createLogger({
      enabled: true,
      level: 'info',
      format: 'json',
      stderr: false,
      filters: { excludeFeeds: [], includeOnly: [] },
      transports: [
        {
          type: 'webhook',
          url: `https://logs:${SECRET.logUrlPassword}@logs.example/ingest`,
          headers: { Authorization: `Bearer ${SECRET.logToken}` },
          batchSize: 100,
          flushInterval: 60_000,
          retries: 0,
          maxBuffer: 10,
          timeout: 1_000,
        },
      ],
    });
    expectNoSecretShown('logger', logger, SECRETS);
    await closeLogger(logger);
  });
});

describe('the OAuth 2.0 token source shows neither its client secret nor a token it fetched', () => {
  let server: ReturnType<typeof createServer>;
  let tokenEndpoint: string;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: SECRET.accessToken, token_type: 'Bearer', expires_in: 3600 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('before and after getToken()', async () => {
    const http = createHttpClient({});
    const source = createOAuth2TokenSource({
      tokenEndpoint,
      clientId: 'threatlib',
      clientSecret: () => SECRET.oauthSecret,
      http,
      enforceHttps: false,
    });
    expectNoSecretShown('token source', source, SECRETS);
    expect(await source.getToken()).toBe(SECRET.accessToken);
    expectNoSecretShown('token source with a token', source, SECRETS);
    await http.close();
  });
});
