// The token audiences of the Azure clouds, chosen by the authority host. Sources:
// - Authority hosts: https://learn.microsoft.com/en-us/javascript/api/@azure/identity/azureauthorityhosts
// - Logs Ingestion audiences (KnownMonitorAudience): @azure/monitor-ingestion
// - Log Analytics query endpoints and audiences per cloud:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/access-api
// - ARM endpoints per cloud: https://learn.microsoft.com/en-us/azure/azure-government/compare-azure-government-global-azure

/** The audiences (resource ids) a token is asked for, one per API. */
export interface SentinelAudiences {
  ingestion: string;
  query: string;
  arm: string;
}

const PUBLIC: SentinelAudiences = {
  ingestion: 'https://monitor.azure.com',
  query: 'https://api.loganalytics.io',
  arm: 'https://management.azure.com',
};

const CLOUDS: Record<string, SentinelAudiences> = {
  'login.microsoftonline.us': {
    ingestion: 'https://monitor.azure.us',
    query: 'https://api.loganalytics.us',
    arm: 'https://management.usgovcloudapi.net',
  },
  'login.chinacloudapi.cn': {
    ingestion: 'https://monitor.azure.cn',
    query: 'https://api.loganalytics.azure.cn',
    arm: 'https://management.chinacloudapi.cn',
  },
};

/**
 * The audiences of the cloud `authorityHost` signs in to: the public cloud's unless it is a sovereign cloud's
 * authority. The API endpoints may point elsewhere (a private link, a proxy, an emulator); tokens are still asked
 * for the cloud's APIs, since that is what those APIs check.
 */
export function audiencesFor(authorityHost: string): SentinelAudiences {
  return CLOUDS[new URL(authorityHost).hostname] ?? PUBLIC;
}

/** The scope of a client-credentials token for `audience`. */
export function scopeOf(audience: string): string {
  return `${audience}/.default`;
}
