import { describe, expect, it } from 'vitest';
import type { Alert } from '../alerts/alert.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { IntegrationError } from '../errors/integration-error.js';
import type { Integration, IntegrationContext } from '../integration/integration.js';
import { silentLogger } from '../logging/logger.js';
import { configWithSecrets, ThreatClient } from './threat-client.js';

function makeClient() {
  return new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger: silentLogger });
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** Records lifecycle calls into a shared log; fails where told to. */
function lifecycle(log: string[], failOn?: 'start' | 'stop') {
  return class Recorder implements Integration {
    readonly name: string;
    constructor(_options: unknown, context: IntegrationContext) {
      this.name = context.name;
    }
    async start() {
      log.push(`start ${this.name}`);
      if (failOn === 'start') throw new Error(`${this.name} cannot connect`);
    }
    async stop() {
      log.push(`stop ${this.name}`);
      if (failOn === 'stop') throw new Error(`${this.name} hung up badly`);
    }
    async sendAlert(alert: Alert) {
      return alert.id;
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

describe('ThreatClient construction', () => {
  it('throws Configuration invalid: sources for an empty configuration', () => {
    const error = caught(() => new ThreatClient({} as never, { env: false }));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Configuration invalid: sources: /);
  });

  it('throws with the path for maxConcurrency 51', () => {
    expect(
      () => new ThreatClient({ sources: ['feed_urls'], performance: { maxConcurrency: 51 } }, { env: false }),
    ).toThrow(/^Configuration invalid: performance\.maxConcurrency: /);
  });

  it('refuses a configuration that is not an object', () => {
    expect(() => new ThreatClient(undefined as never, { env: false })).toThrow(
      'Configuration invalid: (root): expected a configuration object',
    );
  });
});

describe('updateConcurrency', () => {
  it('accepts 1..50 and refuses anything else with the reason', () => {
    const client = makeClient();
    client.updateConcurrency(1);
    expect(client.concurrency).toBe(1);
    client.updateConcurrency(50);
    expect(client.concurrency).toBe(50);
    for (const bad of [0, 51, 2.5, Number.NaN, '5' as never]) {
      const error = caught(() => client.updateConcurrency(bad));
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/performance\.maxConcurrency: expected a whole number from 1 to 50/);
    }
    expect(client.concurrency).toBe(50);
  });
});

describe('registerIntegration', () => {
  it('refuses a class without sendAlert or enrichIndicator, naming what is missing', () => {
    class NoMethods {}
    class OnlySend {
      async sendAlert() {}
    }
    const client = makeClient();
    const a = caught(() => client.registerIntegration('a', NoMethods as never));
    expect(IntegrationError.isInstance(a)).toBe(true);
    expect((a as Error).message).toBe(
      'Integration "a" does not implement the Integration contract: missing sendAlert and enrichIndicator',
    );
    expect(() => client.registerIntegration('b', OnlySend as never)).toThrow(/missing enrichIndicator/);
    expect(() => client.registerIntegration('c', {} as never)).toThrow(/must be a class/);
    expect(client.integrationNames).toEqual([]);
  });

  it('refuses a taken name and a bad name', () => {
    const client = makeClient();
    client.registerIntegration('siem', lifecycle([]));
    expect(() => client.registerIntegration('siem', lifecycle([]))).toThrow('Integration "siem" is already registered');
    expect(() => client.registerIntegration('no spaces', lifecycle([]))).toThrow(/name "no spaces" is invalid/);
  });

  it('wraps a constructor failure with the name and the cause', () => {
    class Exploding {
      constructor() {
        throw new Error('bad options');
      }
      async sendAlert() {}
      async enrichIndicator() {}
    }
    const error = caught(() => makeClient().registerIntegration('boom', Exploding));
    expect((error as Error).message).toBe('Integration "boom" could not be created: bad options');
    expect(((error as Error).cause as Error).message).toBe('bad options');
  });

  it('refuses an integration written for another contract version', () => {
    class Future {
      readonly specificationVersion = 'v9';
      async sendAlert() {}
      async enrichIndicator() {}
    }
    expect(() => makeClient().registerIntegration('future', Future as never)).toThrow(/implements contract v9/);
  });

  it('passes options and a context with the client, logger, events and HTTP pool', () => {
    let seen: { options: unknown; context: IntegrationContext } | undefined;
    class Probe {
      constructor(options: unknown, context: IntegrationContext) {
        seen = { options, context };
      }
      async sendAlert() {}
      async enrichIndicator() {}
    }
    const client = makeClient();
    client.registerIntegration('probe', Probe, { level: 3 });
    expect(seen?.options).toEqual({ level: 3 });
    expect(seen?.context.name).toBe('probe');
    // The context's configuration has the secrets an integration acts on; client.config shows them redacted.
    expect(seen?.context.client.config).toBe(configWithSecrets(client));
    expect(seen?.context.client.alerts).toBe(client.alerts);
    expect(seen?.context.events).toBe(client.events);
    expect(seen?.context.logger).toBe(client.logger);
    expect(seen?.context.http).toBe(client.http);
  });

  it('cannot register while the client runs', async () => {
    const client = makeClient();
    await client.start();
    expect(() => client.registerIntegration('late', lifecycle([]))).toThrow(/while the client is running/);
    await client.stop();
  });
});

describe('start and stop', () => {
  it('starts integrations in order and stops them in reverse', async () => {
    const log: string[] = [];
    const client = makeClient();
    client.registerIntegration('one', lifecycle(log));
    client.registerIntegration('two', lifecycle(log));
    await client.start();
    expect(client.state).toBe('running');
    await client.stop();
    expect(client.state).toBe('idle');
    expect(log).toEqual(['start one', 'start two', 'stop two', 'stop one']);
  });

  it('stops those already started when one fails, and rejects naming the failed one', async () => {
    const log: string[] = [];
    const client = makeClient();
    client.registerIntegration('queue', lifecycle(log));
    client.registerIntegration('storage', lifecycle(log));
    client.registerIntegration('siem', lifecycle(log, 'start'));
    client.registerIntegration('webhooks', lifecycle(log));
    const error = await client.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ integration: 'siem', phase: 'start' });
    expect((error as Error).message).toBe('Integration "siem" failed to start: siem cannot connect');
    expect(log).toEqual(['start queue', 'start storage', 'start siem', 'stop storage', 'stop queue']);
    expect(client.state).toBe('idle');
  });

  it('asks every integration to stop even when one fails, then reports the failure', async () => {
    const log: string[] = [];
    const client = makeClient();
    client.registerIntegration('first', lifecycle(log));
    client.registerIntegration('flaky', lifecycle(log, 'stop'));
    client.registerIntegration('last', lifecycle(log));
    await client.start();
    const error = await client.stop().catch((e: unknown) => e);
    expect(log.slice(3)).toEqual(['stop last', 'stop flaky', 'stop first']);
    expect(error).toMatchObject({ integration: 'flaky', phase: 'stop' });
    expect((error as Error).message).toMatch(/"flaky" failed to stop cleanly: flaky hung up badly/);
  });

  it('reports the health of every integration', async () => {
    const client = makeClient();
    client.registerIntegration('plain', lifecycle([]));
    expect(await client.integrationHealth()).toEqual([{ name: 'plain', healthy: false, detail: 'not started' }]);
    await client.start();
    expect(await client.integrationHealth()).toEqual([{ name: 'plain', healthy: true, detail: 'started' }]);
    await client.stop();
  });
});
