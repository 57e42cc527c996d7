export { builtinWarninglists } from './builtin-warninglists.js';
export { type CsvRow, readCsv } from './csv-reader.js';
export {
  IndicatorMatcher,
  type MatcherHit,
  type MatcherRule,
  type MatcherStats,
  type MatchKind,
} from './indicator-matcher.js';
export { type IpRange, type IpRangeResult, parseIpRange } from './ip-range.js';
export type { LinearRegex } from './linear-regex.js';
export { ListLoadError } from './list-load-error.js';
export {
  LOCAL_LIST_FORMATS,
  LOCAL_LIST_MATCH_MODES,
  LocalList,
  type LocalListContents,
  type LocalListFormat,
  type LocalListMatch,
  type LocalListMatchMode,
  type LocalListOptions,
  type LocalListVerdict,
  loadLocalList,
  parseLocalList,
} from './local-list.js';
export { type AttributeTypeMapping, indicatorTypesForAttributes } from './misp-attribute-types.js';
export { compileMispWarninglist, loadMispWarninglist } from './misp-warninglist.js';
export { compilePcreRegex, type PcreResult } from './pcre-regex.js';
export {
  StixIndicatorList,
  type StixIndicatorListOptions,
  type StixIndicatorListStatus,
  type StixIndicatorSnapshot,
  type StixObjectOutcome,
  type StixSkippedObject,
  type StixSkipReason,
} from './stix-indicator-list.js';
export type { ListState, ListStateStore } from './taxii/list-state-store.js';
export type { TaxiiListStatus, TaxiiPollStatus } from './taxii/taxii-list-source.js';
export {
  MISP_LIST_TYPES,
  type MispListType,
  type SkippedEntry,
  Warninglist,
  type WarninglistDefinition,
  type WarninglistMatch,
  type WarninglistTag,
} from './warninglist.js';
export { type WarninglistConfig, WarninglistSet } from './warninglist-set.js';
