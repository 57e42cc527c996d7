import type { PlatformDefinition } from '../platform.js';
import { SPLUNK_MANAGEMENT_PORT, SPLUNK_OPTIONS } from './splunk-options.js';
import { SplunkPlatform } from './splunk-platform.js';

/** Splunk Enterprise / Splunk Cloud (with Enterprise Security for cases as notable events): platform `siem_a`. */
export const splunk: PlatformDefinition<typeof SPLUNK_OPTIONS> = {
  id: 'siem_a',
  vendor: 'Splunk',
  status: 'production',
  defaultPort: SPLUNK_MANAGEMENT_PORT,
  optionsShape: SPLUNK_OPTIONS,
  secretsOf: (options) => [options.hec.token],
  create: (settings) => new SplunkPlatform(settings),
};
