import { type Integration, IntegrationError, type IntegrationFactory } from '@threatlib/core';

/**
 * The factory `client.start()` calls for `integrations.cloudSiem` (core imports it from `@threatlib/cloud`): Microsoft
 * Sentinel threat-intelligence indicators. Not built yet (issue 17, the Azure half): it refuses clearly rather than
 * starting an integration that does nothing.
 *
 * @throws {IntegrationError} always, saying that `integrations.cloudSiem` is not available in this version.
 */
export const createCloudSiemIntegration: IntegrationFactory<unknown, Integration> = (_options, context) => {
  throw new IntegrationError(
    context.name,
    'start',
    `${context.optionsPath} (Microsoft Sentinel threat intelligence) is not built yet in @threatlib/cloud: remove it from the configuration`,
  );
};
