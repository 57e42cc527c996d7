import type {
  Alert,
  EnrichedIndicator,
  IndicatorRef,
  Integration,
  IntegrationContext,
  IntegrationFactory,
  IntegrationHealth,
} from '@threatlib/core';
import { ConfigurationError, systemClock } from '@threatlib/core';
import type { ThreatStorage } from '../contract/threat-storage.js';
import { parseStorageOptions } from './storage-options.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The storage back end `client.start()` builds from `integrations.storage`. */
    storage: StorageIntegration;
  }
}

/** The options of `integrations.storage`: `{type: 'mongodb', uri, database, collections?}` and the like. */
export interface StorageIntegrationOptions {
  /** Which back end: `mongodb` (a MongoDB or wire-compatible server). */
  type: string;
  [option: string]: unknown;
}

/**
 * A storage back end as a client integration: what the client concludes is kept in it, and `enrichIndicator` answers
 * from the indicator's history there. `storage` is the back end itself.
 */
export class StorageIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The back end behind the integration. */
  readonly storage: ThreatStorage;

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.storage...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: StorageIntegrationOptions, context: IntegrationContext) {
    if (options === undefined || options === null || Object.keys(options as object).length === 0) {
      throw new ConfigurationError([
        { path: context.optionsPath, message: 'not configured: set {type: "mongodb", uri, database}' },
      ]);
    }
    const parsed = parseStorageOptions(options, context.optionsPath);
    this.storage = parsed.backend.create(parsed.options, {
      logger: context.logger,
      optionsPath: context.optionsPath,
      clock: systemClock,
    });
  }

  async start(): Promise<void> {
    await this.storage.start();
  }

  async stop(): Promise<void> {
    await this.storage.stop();
  }

  health(): Promise<IntegrationHealth> {
    return this.storage.health();
  }

  /** Keeps the alert in the back end's alert store unless it holds it already. */
  async sendAlert(alert: Alert): Promise<{ stored: string }> {
    if ((await this.storage.alerts.get(alert.id)) === undefined) await this.storage.alerts.add(alert);
    return { stored: alert.id };
  }

  /** What the indicator's history says: first and last seen, how many times, and the latest risk score (0..100). */
  async enrichIndicator(indicator: IndicatorRef): Promise<EnrichedIndicator | undefined> {
    const history = await this.storage.indicatorHistory(indicator.value);
    if (history === undefined) return undefined;
    return {
      indicator: history.indicator,
      firstSeen: history.firstSeen.toISOString(),
      lastSeen: history.lastSeen.toISOString(),
      associatedEvents: history.timesSeen,
      riskScore: history.lastConfidence,
    };
  }
}

/**
 * The factory `client.start()` calls for `integrations.storage` (core imports it from `@threatlib/storage`).
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: { storage: { type: 'mongodb', uri: 'mongodb://127.0.0.1:27017', database: 'threatlib' } },
 * });
 * await client.start(); // imports @threatlib/storage, connects, prepares the collections
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.storage.<option>: ...` naming each problem.
 */
export const createStorageIntegration: IntegrationFactory<StorageIntegrationOptions, StorageIntegration> = (
  options,
  context,
) => new StorageIntegration(options, context);
