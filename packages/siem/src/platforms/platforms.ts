import { chronicle } from './chronicle/chronicle.js';
import { elastic } from './elastic/elastic.js';
import type { PlatformDefinition } from './platform.js';
import type { PlatformId } from './platform-id.js';
import { qradar } from './qradar/qradar.js';
import { sentinel } from './sentinel/sentinel.js';
import { splunk } from './splunk/splunk.js';

/**
 * The platforms this version implements, by identifier. Each lives in `src/platforms/<vendor>/` and adds itself
 * here; an identifier missing from this table is refused by the connector with a clear message.
 */
// biome-ignore lint/suspicious/noExplicitAny: each definition has its own options shape; the connector validates with it.
export const PLATFORMS: Readonly<Partial<Record<PlatformId, PlatformDefinition<any, any>>>> = {
  siem_a: splunk,
  siem_b: qradar,
  siem_c: elastic,
  siem_d: sentinel,
  siem_e: chronicle,
};
