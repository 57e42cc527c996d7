import type { PlatformDefinition } from '../platform.js';
import { SENTINEL_DEFAULT_PORT, SENTINEL_OPTIONS, validateSentinelOptions } from './sentinel-options.js';
import { SentinelPlatform } from './sentinel-platform.js';
import { loadSentinelSdk, type SentinelSdk } from './sentinel-sdk.js';

/**
 * Microsoft Sentinel: platform `siem_d`. `host`/`port` are the data collection endpoint (alerts); Entra ID, Log
 * Analytics and Azure Resource Manager are reached at their clouds' hosts (or the `authorityHost`,
 * `logAnalyticsEndpoint` and `armEndpoint` options).
 */
export const sentinel: PlatformDefinition<typeof SENTINEL_OPTIONS, SentinelSdk> = {
  id: 'siem_d',
  vendor: 'Microsoft Sentinel',
  status: 'production',
  defaultPort: SENTINEL_DEFAULT_PORT,
  optionsShape: SENTINEL_OPTIONS,
  validate: (options) => validateSentinelOptions(options),
  loadSdk: (options, at) => loadSentinelSdk(options, at),
  create: (settings, sdk) => new SentinelPlatform(settings, sdk),
};
