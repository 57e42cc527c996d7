// The legacy threat-intelligence indicator API of Azure Resource Manager, through @azure/arm-securityinsight. It
// writes the ThreatIntelligenceIndicator table, which Microsoft no longer fills for new workspaces; kept for
// workspaces and tools still on it. Sources:
// - SecurityInsights(credential, subscriptionId, {endpoint, credentialScopes, apiVersion, agent, retryOptions})
//   .threatIntelligenceIndicator.createIndicator(resourceGroupName, workspaceName, threatIntelligenceProperties):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/arm-securityinsight/threatintelligenceindicator
// - POST .../providers/Microsoft.SecurityInsights/threatIntelligence/main/createIndicator:
//   https://learn.microsoft.com/en-us/rest/api/securityinsights/threat-intelligence-indicator/create-indicator
// - ARM throttling (429 with Retry-After):
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/request-limits-and-throttling
import type { Agent } from 'node:https';
import type { SecurityInsights } from '@azure/arm-securityinsight';
import type { TokenCredential } from '@azure/identity';
import type { Logger } from '@threatlib/core';
import type { Clock, FeedScheduler } from '@threatlib/core/integration';
import type { AzureSdk } from './azure-sdk.js';
import { thrownFailure } from './sentinel-failure.js';
import { type StixIndicatorObject, toLegacyIndicator } from './sentinel-indicator.js';
import { LEGACY_API_VERSION } from './sentinel-options.js';
import { throttleWaitMs } from './throttle-wait.js';

/** The scheduler lane of Azure Resource Manager's writes: the pauses its 429s ask for. */
const ARM_LANE = 'sentinel:arm';

/** What the legacy API needs from the integration. */
export interface LegacyIndicatorSettings {
  credential: TokenCredential;
  subscriptionId: string;
  resourceGroupName: string;
  workspaceName: string;
  endpoint: string;
  scope: string;
  agent: Agent;
  scheduler: FeedScheduler;
  clock: Clock;
  logger: Logger;
  source: string;
  maxThrottleRetries: number;
  secrets: readonly string[];
  /** `@azure/arm-securityinsight`, loaded for `api: 'legacy'`. */
  sdk: NonNullable<AzureSdk['arm']>;
}

interface RestErrorLike {
  statusCode?: number;
  response?: { headers?: { get(name: string): string | undefined }; bodyAsText?: string | null };
}

/** Creates indicators one by one with the SDK (the legacy API has no batch call), waiting out ARM's 429s. */
export class LegacyIndicatorApi {
  readonly #s: LegacyIndicatorSettings;
  readonly #sdk: SecurityInsights;

  constructor(settings: LegacyIndicatorSettings) {
    this.#s = settings;
    this.#sdk = new settings.sdk.SecurityInsights(settings.credential, settings.subscriptionId, {
      endpoint: settings.endpoint,
      credentialScopes: [settings.scope],
      apiVersion: LEGACY_API_VERSION,
      agent: settings.agent,
      // Azure's retries off: a 429 is waited out by the integration's scheduler, on its clock.
      retryOptions: { maxRetries: 0 },
    });
  }

  /**
   * Creates the indicator; resolves with its resource name (a GUID).
   *
   * @throws {CloudError} naming the call and ARM's (or Entra ID's) reason.
   */
  async create(object: StixIndicatorObject, signal?: AbortSignal): Promise<string> {
    const { scheduler, clock, logger } = this.#s;
    const model = toLegacyIndicator(object, this.#s.source);
    for (let throttled = 0; ; throttled++) {
      try {
        const created = await scheduler.schedule(
          ARM_LANE,
          () =>
            this.#sdk.threatIntelligenceIndicator.createIndicator(
              this.#s.resourceGroupName,
              this.#s.workspaceName,
              model,
              {
                ...(signal === undefined ? {} : { abortSignal: signal }),
              },
            ),
          { signal },
        );
        return created.name ?? '';
      } catch (error) {
        const e = error as RestErrorLike;
        if (e?.statusCode !== 429 || throttled >= this.#s.maxThrottleRetries) {
          throw thrownFailure('CreateIndicator', error, this.#s.secrets);
        }
        const waitMs = throttleWaitMs(
          e.response?.headers?.get('retry-after'),
          e.response?.bodyAsText ?? undefined,
          clock.now(),
        );
        logger.warn(
          { api: 'sentinel-legacy', waitMs, attempt: throttled + 1 },
          `Azure Resource Manager is throttling the legacy indicator API: waiting ${waitMs} ms as it asked`,
        );
        scheduler.pause(ARM_LANE, clock.now() + waitMs);
      }
    }
  }
}
