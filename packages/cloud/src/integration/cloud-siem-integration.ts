import type { IntegrationFactory } from '@threatlib/core/integration';
import { CloudSiemIntegration } from '../azure/cloud-siem-integration.js';
import type { CloudSiemIntegrationOptions } from '../azure/sentinel-options.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** Microsoft Sentinel threat intelligence, built from `integrations.cloudSiem`. */
    cloudSiem: CloudSiemIntegration;
  }
}

/**
 * The factory `client.start()` calls for `integrations.cloudSiem` (core imports it from `@threatlib/cloud`): every
 * threat the client concludes at or above `minConfidence` becomes a Microsoft Sentinel threat-intelligence indicator,
 * batched for `batchIntervalMs`; `client.integration('cloudSiem')` is the {@link CloudSiemIntegration}, for
 * `createIndicator`.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   integrations: {
 *     cloudSiem: {
 *       subscriptionId: '<SUBSCRIPTION_ID>',
 *       resourceGroupName: 'rg-security',
 *       workspaceName: 'law-sentinel',
 *       credentials: { tenantId: '<TENANT_ID>', clientId: '<CLIENT_ID>', clientSecret: '<CLIENT_SECRET>' },
 *       minConfidence: 80,
 *     },
 *   },
 * });
 * await client.start();
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: integrations.cloudSiem.<option>: <reason>`.
 */
export const createCloudSiemIntegration: IntegrationFactory<CloudSiemIntegrationOptions, CloudSiemIntegration> = (
  options,
  context,
) =>
  new CloudSiemIntegration(options, {
    logger: context.logger,
    events: context.events,
    optionsPath: context.optionsPath,
    checkEndpoint: (url, what) => context.checkEndpoint(url, what),
  });
