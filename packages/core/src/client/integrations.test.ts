// The integrations a client builds from its configuration, and those registered by hand.
import { describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import type { ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { IntegrationError } from '../errors/integration-error.js';
import type { Integration, IntegrationContext } from '../integration/integration.js';
import type { IntegrationFactory } from '../integration/integration-factory.js';
import { INTEGRATION_PACKAGES } from '../integration/integration-packages.js';
import {
  client,
  fakeIntegration,
  fakePackage,
  loaderOf,
  notInstalled,
  siemOptions,
} from './integration-fakes.test-suite.js';

describe('integrations built from configuration', () => {
  it('creates, starts and stops a configured integration with the factory its package exports', async () => {
    const log: string[] = [];
    const c = client(
      { integrations: { siem: siemOptions } },
      { loadIntegrationPackage: loaderOf({ '@threatlib/siem': fakePackage('siem', log) }) },
    );
    expect(c.integration('siem')).toBeUndefined();
    await c.start();
    expect(log).toEqual([`create siem ${JSON.stringify(siemOptions)} at integrations.siem`, 'start siem']);
    expect(c.integrationNames).toEqual(['siem']);
    expect(await c.integration('siem')?.sendAlert({ title: 'beacon' } as Alert)).toEqual({ received: 'beacon' });
    expect(await c.integrationHealth()).toEqual([{ name: 'siem', healthy: true, detail: 'started' }]);

    await c.stop();
    expect(log.at(-1)).toBe('stop siem');
    expect(c.integration('siem')).toBeUndefined();

    // A restart builds it afresh: a stopped integration is never started twice.
    await c.start();
    expect(log.filter((line) => line.startsWith('create siem'))).toHaveLength(2);
    await c.stop();
  });

  it('builds every configured key, each from its own package, and starts sinks before sources', async () => {
    const log: string[] = [];
    const asked: string[] = [];
    const cloud = { ...fakePackage('cloud', log), ...fakePackage('cloudSiem', log) };
    const c = client(
      {
        integrations: {
          messageQueue: { type: 'rabbitmq', connection: 'amqp://127.0.0.1:5672', queues: { incoming: 'in' } },
          webhooks: { incoming: { port: 0, path: '/hooks' }, outgoing: [] },
          siem: siemOptions,
          storage: { type: 'documentstore', uri: 'mongodb://127.0.0.1:27017', database: 'threatlib' },
          cloud: { region: 'eu-west-1', credentials: { accessKeyId: 'AKIA', secretAccessKey: 'x' } },
          cloudSiem: { subscriptionId: 's', resourceGroupName: 'g', workspaceName: 'w', credentials: {} },
        },
      },
      {
        loadIntegrationPackage: loaderOf(
          {
            '@threatlib/siem': fakePackage('siem', log),
            '@threatlib/webhooks': fakePackage('webhooks', log),
            '@threatlib/storage': fakePackage('storage', log),
            '@threatlib/queue': fakePackage('messageQueue', log),
            '@threatlib/cloud': cloud,
          },
          asked,
        ),
      },
    );
    await c.start();
    const order = ['storage', 'siem', 'cloud', 'cloudSiem', 'webhooks', 'messageQueue'];
    expect(c.integrationNames).toEqual(order);
    expect(log.filter((line) => line.startsWith('start'))).toEqual(order.map((key) => `start ${key}`));
    // @threatlib/cloud serves two keys and is imported once.
    expect(asked.sort()).toEqual([
      '@threatlib/cloud',
      '@threatlib/queue',
      '@threatlib/siem',
      '@threatlib/storage',
      '@threatlib/webhooks',
    ]);
    await c.stop();
    expect(log.filter((line) => line.startsWith('stop'))).toEqual(order.reverse().map((key) => `stop ${key}`));
  });

  it("passes the documented shapes through core's schema to each factory unchanged", async () => {
    class TokenCredential {
      getToken = async () => ({ token: 'not-a-real-token', expiresOnTimestamp: 0 });
    }
    const credential = new TokenCredential();
    const integrations = {
      messageQueue: { type: 'kafka', brokers: ['127.0.0.1:9092'], topics: { threats: 'threats', alerts: 'alerts' } },
      storage: {
        type: 'searchindex',
        node: 'https://127.0.0.1:9200',
        auth: { username: 'elastic', password: 'not-a-real-password' },
        indices: { threats: 'threats', campaigns: 'campaigns' },
      },
      webhooks: {
        incoming: { port: 0, path: '/webhooks', authentication: { type: 'hmac', secret: 'not-a-real-secret' } },
        outgoing: [{ name: 'soc', url: 'https://hooks.example/soc', events: ['high-confidence-threat'] }],
      },
      cloudSiem: { subscriptionId: 's', resourceGroupName: 'g', workspaceName: 'w', credentials: credential },
    } satisfies ThreatConfig['integrations'];
    const seen: Record<string, unknown> = {};
    const capturing = (key: keyof typeof INTEGRATION_PACKAGES) => ({
      [INTEGRATION_PACKAGES[key].factory]: ((options) => {
        seen[key] = options;
        return fakeIntegration(key, []);
      }) satisfies IntegrationFactory,
    });
    const c = client(
      { integrations },
      {
        loadIntegrationPackage: loaderOf({
          '@threatlib/queue': capturing('messageQueue'),
          '@threatlib/storage': capturing('storage'),
          '@threatlib/webhooks': capturing('webhooks'),
          '@threatlib/cloud': capturing('cloudSiem'),
        }),
      },
    );
    await c.start();
    expect(seen).toEqual(integrations);
    expect((seen.cloudSiem as { credentials: unknown }).credentials).toBe(credential);
    await c.stop();
  });

  // The workspace holds some of these packages, and pnpm's NODE_PATH lets the real loader find them from the working
  // directory: the loader here fails exactly as Node does when a package is not installed (the real loader's own
  // not-found path is tested in integrations/load-integration-package.test.ts).
  it.each(Object.entries(INTEGRATION_PACKAGES).map(([key, spec]) => [key, spec.package]))(
    'rejects start() naming the package to install when integrations.%s is configured and %s is absent',
    async (key, packageName) => {
      const c = client(
        { integrations: { [key]: { type: 'rabbitmq' } } },
        { loadIntegrationPackage: async (name) => Promise.reject(notInstalled(name)) },
      );
      const error = await c.start().catch((e: unknown) => e);
      expect(IntegrationError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'INTEGRATION_PACKAGE_MISSING',
        integration: key,
        phase: 'start',
        packages: [packageName],
      });
      expect((error as Error).message).toBe(
        `integrations.${key} is configured but ${packageName} is not installed: npm install ${packageName}`,
      );
      expect(c.state).toBe('idle');
    },
  );

  it('names every missing package at once and starts nothing', async () => {
    const log: string[] = [];
    const c = client(
      { integrations: { siem: siemOptions, cloud: { region: 'eu-west-1' }, cloudSiem: { subscriptionId: 's' } } },
      { loadIntegrationPackage: loaderOf({}) },
    );
    c.registerIntegration(
      'tickets',
      class {
        start = () => void log.push('start tickets');
        sendAlert = async () => undefined;
        enrichIndicator = async () => undefined;
      },
    );
    const error = await c.start().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'INTEGRATION_PACKAGE_MISSING',
      integration: 'siem, cloud, cloudSiem',
      packages: ['@threatlib/siem', '@threatlib/cloud'],
    });
    expect((error as Error).message).toBe(
      'integrations.siem, integrations.cloud, integrations.cloudSiem are configured but @threatlib/siem and @threatlib/cloud are not installed: npm install @threatlib/siem @threatlib/cloud',
    );
    expect(log).toEqual([]);
  });

  it('tells a package that fails to load (one of its own dependencies missing) from one not installed', async () => {
    const c = client(
      { integrations: { messageQueue: { type: 'rabbitmq' } } },
      // What Node throws when @threatlib/queue is there but its amqplib is not.
      { loadIntegrationPackage: (name) => import(/* @vite-ignore */ `${name}-dependency-that-is-not-installed`) },
    );
    const error = await c.start().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTEGRATION_FAILED', integration: 'messageQueue', phase: 'start' });
    expect((error as Error).message).toMatch(
      /^Integration "messageQueue" could not be built: @threatlib\/queue is installed but failed to load: Cannot find package '@threatlib\/queue-dependency-that-is-not-installed'/,
    );
  });

  it('refuses a package that does not export the factory, naming it', async () => {
    const c = client(
      { integrations: { cloudSiem: { subscriptionId: 's' } } },
      { loadIntegrationPackage: loaderOf({ '@threatlib/cloud': fakePackage('cloud', []) }) },
    );
    await expect(c.start()).rejects.toThrow(
      'Integration "cloudSiem" could not be built: @threatlib/cloud does not export createCloudSiemIntegration(options, context), which integrations.cloudSiem needs; install a version of @threatlib/cloud made for this @threatlib/core',
    );
  });

  it('refuses what a factory returns when it is not an integration', async () => {
    const c = client(
      { integrations: { siem: siemOptions } },
      {
        loadIntegrationPackage: loaderOf({
          '@threatlib/siem': { createSiemIntegration: () => ({ sendAlert: async () => undefined }) },
        }),
      },
    );
    await expect(c.start()).rejects.toThrow(
      'Integration "siem" built by @threatlib/siem.createSiemIntegration does not implement the Integration contract: missing enrichIndicator',
    );
  });

  it("rejects with the package's Configuration invalid, every path under integrations.<key>", async () => {
    const refusing = (path: string) => ({
      createSiemIntegration: () => {
        throw new ConfigurationError([{ path, message: 'Too big: expected number to be <=65535' }]);
      },
    });
    for (const path of ['port', 'integrations.siem.port']) {
      const c = client(
        { integrations: { siem: { ...siemOptions, port: 70_000 } } },
        { loadIntegrationPackage: loaderOf({ '@threatlib/siem': refusing(path) }) },
      );
      const error = await c.start().catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(
        'Configuration invalid: integrations.siem.port: Too big: expected number to be <=65535',
      );
      expect(c.state).toBe('idle');
    }
  });

  it('stops those already started when one fails to start, and rejects naming it and why', async () => {
    const log: string[] = [];
    const c = client(
      { integrations: { siem: siemOptions, storage: { type: 'documentstore' } } },
      {
        loadIntegrationPackage: loaderOf({
          '@threatlib/storage': fakePackage('storage', log),
          '@threatlib/siem': fakePackage('siem', log, 'start'),
        }),
      },
    );
    const error = await c.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INTEGRATION_FAILED', integration: 'siem', phase: 'start' });
    expect((error as Error).message).toBe('Integration "siem" failed to start: siem refused the connection');
    expect(log.filter((line) => !line.startsWith('create'))).toEqual(['start storage', 'start siem', 'stop storage']);
    expect(c.integrationNames).toEqual([]);
    expect(c.state).toBe('idle');
  });

  it('asks every built integration to stop even when one fails, then reports it', async () => {
    const log: string[] = [];
    const c = client(
      { integrations: { siem: siemOptions, storage: { type: 'documentstore' } } },
      {
        loadIntegrationPackage: loaderOf({
          '@threatlib/storage': fakePackage('storage', log),
          '@threatlib/siem': fakePackage('siem', log, 'stop'),
        }),
      },
    );
    await c.start();
    const error = await c.stop().catch((e: unknown) => e);
    expect(log.filter((line) => line.startsWith('stop'))).toEqual(['stop siem', 'stop storage']);
    expect(error).toMatchObject({ integration: 'siem', phase: 'stop' });
    expect(c.integrationNames).toEqual([]);
  });

  it('never skips a configured key silently: one nothing builds or is registered under fails start()', async () => {
    const c = client({ integrations: { alertWebhook: { endpoint: 'https://hooks.example' } } });
    const error = await c.start().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTEGRATION_FAILED', integration: 'alertWebhook', phase: 'start' });
    expect((error as Error).message).toBe(
      'integrations.alertWebhook is configured but no integration is registered under "alertWebhook", and threatlib builds only storage, siem, cloud, cloudSiem, webhooks, messageQueue from configuration: call client.registerIntegration("alertWebhook", YourIntegration) before start(), or remove the option',
    );
  });

  it('lets an integration registered under a key serve it, with the configured options, and loads nothing', async () => {
    const asked: string[] = [];
    let given: unknown;
    const c = client({ integrations: { siem: siemOptions } }, { loadIntegrationPackage: loaderOf({}, asked) });
    c.registerIntegration(
      'siem',
      class {
        constructor(options: unknown) {
          given = options;
        }
        sendAlert = async () => undefined;
        enrichIndicator = async () => undefined;
      },
    );
    await c.start();
    expect(given).toEqual(siemOptions);
    expect(asked).toEqual([]);
    await c.stop();
  });

  it("gives a built integration the client's scout and correlate through its context", async () => {
    const contexts: IntegrationContext[] = [];
    const c = client(
      { integrations: { siem: siemOptions } },
      { loadIntegrationPackage: loaderOf({ '@threatlib/siem': fakePackage('siem', [], undefined, contexts) }) },
    );
    await c.start();
    const [context] = contexts;
    const threats: string[] = [];
    c.on('threatFound', (threat) => void threats.push(threat.indicator));
    const correlation = await context?.client.correlate('EVIL.threatlib-test.net');
    expect(correlation).toMatchObject({ indicator: 'evil.threatlib-test.net', isThreat: true, verdict: 'malicious' });
    const scout = await context?.client.scout('fine.threatlib-test.net', { type: 'domain' });
    expect(scout?.results.map((r) => [r.feed, r.verdict])).toEqual([['list:blocklist', 'unknown']]);
    expect(threats).toEqual(['evil.threatlib-test.net']);
    await c.stop();
  });

  it('lets an integration find another through its context, built or registered, started or not yet', async () => {
    const log: string[] = [];
    const contexts: IntegrationContext[] = [];
    const seen: Array<[string, unknown]> = [];
    // Registered ones start first: when this one starts, the storage integration is built but not started.
    class Looker implements Integration {
      readonly #context: IntegrationContext;
      constructor(_options: unknown, context: IntegrationContext) {
        this.#context = context;
      }
      start() {
        seen.push(['storage', this.#context.client.integration('storage')]);
        seen.push(['nothing', this.#context.client.integration('nothing')]);
      }
      sendAlert = async () => undefined;
      enrichIndicator = async () => undefined;
    }
    const c = client(
      { integrations: { storage: { type: 'mongodb' } } },
      {
        loadIntegrationPackage: loaderOf({ '@threatlib/storage': fakePackage('storage', log, undefined, contexts) }),
      },
    );
    const looker = c.registerIntegration('looker', Looker);
    await c.start();
    expect(seen).toEqual([
      ['storage', c.integration('storage')],
      ['nothing', undefined],
    ]);
    expect(seen[0]?.[1]).toBeDefined();
    expect(log).toEqual(['create storage {"type":"mongodb"} at integrations.storage', 'start storage']);
    // And the other way round: a built integration finds a registered one.
    expect(contexts[0]?.client.integration('looker')).toBe(looker);
    await c.stop();
    expect(contexts[0]?.client.integration('storage')).toBeUndefined();
  });
});

describe('registerIntegration with methods written as instance fields', () => {
  it('registers a class whose sendAlert and enrichIndicator are arrow-function fields, and it works', async () => {
    class ArrowPlugin {
      readonly sent: string[] = [];
      readonly options: { endpoint: string };
      constructor(options: { endpoint: string }) {
        this.options = options;
      }
      sendAlert = async (alert: Alert) => {
        this.sent.push(`${this.options.endpoint}: ${alert.title}`);
        return { ok: true };
      };
      enrichIndicator = async (indicator: { type: string; value: string }) => ({ seen: indicator.value });
    }
    const c = client({});
    const plugin = c.registerIntegration('arrows', ArrowPlugin, { endpoint: 'https://hooks.example' });
    await c.start();
    expect(await c.integration('arrows')?.sendAlert({ title: 'beacon' } as Alert)).toEqual({ ok: true });
    expect(plugin.sent).toEqual(['https://hooks.example: beacon']);
    expect(await plugin.enrichIndicator({ type: 'ip', value: '198.51.100.4' })).toEqual({ seen: '198.51.100.4' });
    await c.stop();
  });

  it('still names what an instance lacks, whether methods are fields or on the prototype', () => {
    class HalfArrow {
      sendAlert = async () => undefined;
    }
    expect(() => client({}).registerIntegration('half', HalfArrow as never)).toThrow(
      'Integration "half" does not implement the Integration contract: missing enrichIndicator',
    );
  });
});
