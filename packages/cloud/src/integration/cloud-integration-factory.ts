import { type Integration, IntegrationError, type IntegrationFactory } from '@threatlib/core';

/**
 * The factory `client.start()` calls for `integrations.cloud` (core imports it from `@threatlib/cloud`): concluded
 * threats published as a GuardDuty threat list kept in S3. Being built (issue 17, the AWS half).
 *
 * @throws {IntegrationError} until the AWS half lands.
 */
export const createCloudIntegration: IntegrationFactory<unknown, Integration> = (_options, context) => {
  throw new IntegrationError(
    context.name,
    'start',
    `${context.optionsPath} (GuardDuty threat list in S3) is not built yet in @threatlib/cloud: remove it from the configuration`,
  );
};
