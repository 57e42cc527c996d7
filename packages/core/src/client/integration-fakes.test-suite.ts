// What the integration tests share: a client asking no feed, the documented SIEM options, an integration as a
// factory returns it, a fake package of factories, and a package loader serving fakes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Alert } from '../alerts/alert.js';
import type { ThreatConfig } from '../config/schema.js';
import type { Integration, IntegrationContext } from '../integration/integration.js';
import type { IntegrationFactory } from '../integration/integration-factory.js';
import { INTEGRATION_PACKAGES } from '../integration/integration-packages.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient, type ThreatClientOptions } from './threat-client.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-integrations-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
/** Asks no feed: a local blocklist is the only source. */
const offline: ThreatConfig = { sources: [], strategy: 'aggressive', lists: [{ name: 'blocklist', file: listFile }] };

/** The documented SIEM options (INTERFACE.md 4.2). */
export const siemOptions = {
  platform: 'siem_a',
  host: 'siem.example',
  port: 8088,
  credentials: { token: 'not-a-real-token' },
  timeout: 30_000,
  retries: 3,
};

/** An integration as a factory returns it: a plain value, each call written into `log`. */
export function fakeIntegration(name: string, log: string[], failOn?: 'start' | 'stop'): Integration {
  return {
    specificationVersion: 'v1',
    async start() {
      log.push(`start ${name}`);
      if (failOn === 'start') throw new Error(`${name} refused the connection`);
    },
    async stop() {
      log.push(`stop ${name}`);
      if (failOn === 'stop') throw new Error(`${name} hung up badly`);
    },
    async sendAlert(alert: Alert) {
      return { received: alert.title };
    },
    async enrichIndicator() {
      return undefined;
    },
  };
}

/** A fake package exporting the factory `key` needs, logging each creation with its options and context. */
export function fakePackage(
  key: keyof typeof INTEGRATION_PACKAGES,
  log: string[],
  failOn?: 'start' | 'stop',
  contexts: IntegrationContext[] = [],
) {
  const factory: IntegrationFactory = (options, context) => {
    log.push(`create ${key} ${JSON.stringify(options)} at ${context.optionsPath}`);
    contexts.push(context);
    return fakeIntegration(key, log, failOn);
  };
  return { [INTEGRATION_PACKAGES[key].factory]: factory };
}

/** A loader serving `modules`; anything else is not installed (rejected as Node rejects a missing package). */
export function loaderOf(
  modules: Record<string, unknown>,
  asked: string[] = [],
): ThreatClientOptions['loadIntegrationPackage'] {
  return async (name) => {
    asked.push(name);
    if (Object.hasOwn(modules, name)) return modules[name];
    throw notInstalled(name);
  };
}

/** The error Node's `import()` rejects with when `name` is not installed. */
export function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from ${import.meta.url}`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

export function client(config: Partial<ThreatConfig>, options: ThreatClientOptions = {}): ThreatClient {
  return new ThreatClient({ ...offline, ...config } as ThreatConfig, { env: false, logger: silentLogger, ...options });
}
