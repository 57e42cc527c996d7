export {
  type ExportMispFeedOptions,
  type ExportMispFeedResult,
  exportMispFeed,
} from './export-misp-feed.js';
export type { MispFeedSkip, MispFeedSkipCount } from './feed-skips.js';
export { loadMispFeedList, type MispFeedListOptions } from './load-misp-feed-list.js';
export type { MispFeedList, MispFeedRefresh, MispFeedStatus } from './misp-feed-list.js';
export {
  type MispAlertInput,
  type MispCorrelationInput,
  type MispFeed,
  type MispFeedAttribute,
  type MispFeedEvent,
  type MispFeedInput,
  type MispFeedTag,
  type MispManifestEntry,
  type MispOrganisation,
  THREATLIB_MISP_NAMESPACE,
  THREATLIB_MISP_ORG,
  type ToMispFeedOptions,
  toMispFeed,
} from './to-misp-feed.js';
