import type * as SecurityInsights from '@azure/arm-securityinsight';
import type * as Identity from '@azure/identity';
import type * as MonitorIngestion from '@azure/monitor-ingestion';
import type * as MonitorQueryLogs from '@azure/monitor-query-logs';
import { loadOptionalPeers } from '@threatlib/core/integration';
import type { SiemCredentials } from '../../connector/connector-options.js';

/**
 * The Azure SDKs a `siem_d` connector uses, optional peer dependencies of `@threatlib/siem`: `@azure/identity` for a
 * client secret (not for a given access token), the Logs Ingestion and Log Analytics clients always, and
 * `@azure/arm-securityinsight` only for cases (with `subscriptionId`).
 */
export interface SentinelSdk {
  identity: typeof Identity | undefined;
  ingestion: typeof MonitorIngestion;
  query: typeof MonitorQueryLogs;
  arm: typeof SecurityInsights | undefined;
}

/**
 * Loads the Azure SDKs these options need (never at import of the package).
 *
 * @throws {ConfigurationError} naming every missing package and the command that installs them.
 */
export function loadSentinelSdk(
  options: { credentials: SiemCredentials; subscriptionId?: string | undefined },
  at: (option: string) => string,
): SentinelSdk {
  const identity = 'password' in options.credentials;
  const arm = options.subscriptionId !== undefined;
  const names = [
    '@azure/monitor-ingestion',
    '@azure/monitor-query-logs',
    ...(identity ? ['@azure/identity'] : []),
    ...(arm ? ['@azure/arm-securityinsight'] : []),
  ];
  const loaded = loadOptionalPeers<unknown[]>(names, {
    from: import.meta.url,
    path: at('platform'),
    neededFor: `siem_d (Microsoft Sentinel)${arm ? ' with cases (subscriptionId)' : ''}`,
  });
  return {
    ingestion: loaded[0] as typeof MonitorIngestion,
    query: loaded[1] as typeof MonitorQueryLogs,
    identity: identity ? (loaded[2] as typeof Identity) : undefined,
    arm: arm ? (loaded.at(-1) as typeof SecurityInsights) : undefined,
  };
}
