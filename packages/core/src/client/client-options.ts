import type { AlertStore } from '../alerts/alert-store.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { Environment } from '../config/environment.js';
import type { IntegrationHealth } from '../integration/integration.js';
import type { IntegrationPackageLoader } from '../integration/load-integration-package.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import type { Vault } from '../vault/vault.js';
import type { ThreatClient } from './threat-client.js';

/** Options of the {@link ThreatClient} constructor that are not part of the configuration. */
export interface ThreatClientOptions {
  /**
   * Environment variables to lay under the constructor's configuration (default `process.env`); `false` ignores
   * the environment.
   */
  env?: Environment | false;
  /** Logger to use instead of the one `logging` describes (any pino-compatible logger). */
  logger?: Logger;
  /** Alert store to use instead of the in-memory one (`client.alerts` keeps its alerts there). */
  alertStore?: AlertStore;
  /** Cache to use instead of the one `caching` describes, e.g. one shared by several clients. */
  cache?: CacheStore;
  /**
   * Clock for quota windows, pauses, retries, breakers, cache expiry and timestamps (default: the real one). Tests
   * pass a `ManualClock` and advance it instead of sleeping.
   */
  clock?: Clock;
  /** Shorthand for a clock whose time is `now()` and whose timers are real. */
  now?: () => number;
  /**
   * A vault holding API keys: feeds whose keys it holds get them from it (before `apiKeys`), and while it is locked
   * a lookup that needs one rejects with `VaultLockedError`. `ThreatClient.createVault` and `openVault` set this.
   */
  vault?: Vault;
  /**
   * Imports the package of an integration built from `integrations` (`@threatlib/siem` for `integrations.siem`...).
   * Default: `import(name)` from `@threatlib/core`'s own location. Where that cannot see the application's packages
   * (Yarn Plug'n'Play, a bundler), pass `(name) => import(name)` written in the application; tests pass fakes.
   */
  loadIntegrationPackage?: IntegrationPackageLoader;
}

/**
 * What `ThreatClient.createVault` and `ThreatClient.openVault` resolve to. `trojan` is `client` under the name the
 * interface threatlib follows gives it.
 */
export interface VaultClient {
  client: ThreatClient;
  vault: Vault;
  trojan: ThreatClient;
}

/** The lifecycle state of a client. */
export type ClientState = 'idle' | 'starting' | 'running' | 'stopping';

/** Health of one registered integration, as `client.integrationHealth()` reports it. */
export interface IntegrationHealthReport extends IntegrationHealth {
  name: string;
}
