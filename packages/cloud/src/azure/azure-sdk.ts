import type * as SecurityInsights from '@azure/arm-securityinsight';
import type * as RestPipeline from '@azure/core-rest-pipeline';
import type * as Identity from '@azure/identity';
import { loadOptionalPeers } from '@threatlib/core/integration';

/**
 * The Azure SDKs a `CloudSiemIntegration` uses, optional peer dependencies of `@threatlib/cloud`: Azure's request
 * pipeline always, `@azure/identity` for a client secret given as options (not for a credential object), and
 * `@azure/arm-securityinsight` only for the legacy indicator API (`api: 'legacy'`).
 */
export interface AzureSdk {
  pipeline: typeof RestPipeline;
  identity: typeof Identity | undefined;
  arm: typeof SecurityInsights | undefined;
}

/**
 * Loads the Azure SDKs these options need (never at import of the package, so an AWS-only application installs no
 * Azure SDK). `path` is where the integration's options sit (`integrations.cloudSiem`), for the error.
 *
 * @throws {ConfigurationError} naming every missing package and the command that installs them.
 */
export function loadAzureSdk(needs: { clientSecret: boolean; legacyApi: boolean }, path: string): AzureSdk {
  const names = [
    '@azure/core-rest-pipeline',
    ...(needs.clientSecret ? ['@azure/identity'] : []),
    ...(needs.legacyApi ? ['@azure/arm-securityinsight'] : []),
  ];
  const loaded = loadOptionalPeers<unknown[]>(names, {
    from: import.meta.url,
    path,
    neededFor: `CloudSiemIntegration (Microsoft Sentinel${needs.legacyApi ? ', legacy API' : ''})`,
  });
  return {
    pipeline: loaded[0] as typeof RestPipeline,
    identity: needs.clientSecret ? (loaded[1] as typeof Identity) : undefined,
    arm: needs.legacyApi ? (loaded.at(-1) as typeof SecurityInsights) : undefined,
  };
}
