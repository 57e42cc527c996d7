import {
  type Alert,
  type CaseInput,
  ConfigurationError,
  type EnrichedIndicator,
  type IndicatorRef,
} from '@threatlib/core';
import type {
  Integration,
  IntegrationContext,
  IntegrationFactory,
  IntegrationHealth,
  SendAlertOptions,
} from '@threatlib/core/integration';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { SIEMConnector } from '../connector/siem-connector.js';
import type { ConnectionReport, DeliveryReceipt } from '../platforms/platform.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The SIEM connector `client.start()` builds from `integrations.siem`. */
    siem: SiemIntegration;
  }
}

/**
 * A `SIEMConnector` as a client integration: the client delivers every alert it raises or is given to
 * `sendAlert` (one attempt per call: the client retries with backoff, up to the connector's `retries`, each attempt
 * given its `timeout`), and `enrichIndicator` adds what the SIEM has seen. `connector` is the connector itself, for
 * `createCase` and the rest.
 */
export class SiemIntegration implements Integration {
  readonly specificationVersion = 'v1' as const;
  /** The connector behind the integration. */
  readonly connector: SIEMConnector;

  /**
   * @throws {ConfigurationError} `Configuration invalid: integrations.siem...` when the options are missing or
   *   invalid, naming each problem.
   */
  constructor(options: SiemConnectorOptions, context: IntegrationContext) {
    if (options === undefined || options === null || Object.keys(options as object).length === 0) {
      throw new ConfigurationError([
        { path: context.optionsPath, message: 'not configured: set {platform, host, port, credentials}' },
      ]);
    }
    const { security, performance } = context.client.config;
    this.connector = new SIEMConnector(options, {
      logger: context.logger,
      enforceHttps: security.enforceHttps,
      retryDelay: performance.retryDelay,
      backoffMultiplier: performance.backoffMultiplier,
      optionsPath: context.optionsPath,
    });
  }

  /** Read by the client's delivery policy: retries of a failed delivery. */
  get retries(): number {
    return this.connector.retries;
  }

  /** Read by the client's delivery policy: ms one delivery attempt may take. */
  get timeout(): number {
    return this.connector.timeout;
  }

  /** Nothing to open: connections are made on the first call. */
  start(): void {}

  async stop(): Promise<void> {
    await this.connector.stop();
  }

  /** Whether the SIEM answers and accepts the credentials now (one `testConnection` attempt). */
  async health(): Promise<IntegrationHealth> {
    try {
      const report = await this.connector.testConnection({ retries: 0 });
      return { healthy: true, detail: `${this.connector.vendor} at ${this.connector.address}`, ...report };
    } catch (error) {
      return { healthy: false, detail: (error as Error).message };
    }
  }

  /** One delivery attempt of a stored alert (the client retries). */
  async sendAlert(alert: Alert, options: SendAlertOptions = {}): Promise<DeliveryReceipt> {
    return this.connector.sendAlert(alert, { retries: 0, ...(options.signal ? { signal: options.signal } : {}) });
  }

  async enrichIndicator(indicator: IndicatorRef): Promise<EnrichedIndicator> {
    return this.connector.enrichIndicator(indicator);
  }

  /** `connector.createCase`. */
  async createCase(input: CaseInput): Promise<string> {
    return this.connector.createCase(input);
  }

  /** `connector.testConnection`. */
  async testConnection(): Promise<ConnectionReport> {
    return this.connector.testConnection();
  }
}

/**
 * The factory `client.start()` calls for `integrations.siem` (core imports it from `@threatlib/siem`): a client
 * configured with a SIEM delivers its alerts there once started, with no other code.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: {
 *     siem: { platform: 'siem_a', host: 'splunk.example.com', port: 8089,
 *       credentials: { token: process.env.SPLUNK_TOKEN }, hec: { token: process.env.SPLUNK_HEC_TOKEN } },
 *   },
 * });
 * await client.start();
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.siem.<option>: ...` naming each problem.
 */
export const createSiemIntegration: IntegrationFactory<SiemConnectorOptions, SiemIntegration> = (options, context) =>
  new SiemIntegration(options, context);
