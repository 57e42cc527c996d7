// The `@threatlib/core/lists` entry: the lists an application makes itself and hands to `client.addList` (lists
// named in the configuration need none of it): a local list parsed from text, a list fed with STIX objects as they
// come (the server's writable TAXII collection keeps one), and the store a TAXII list keeps its state in between runs
// (an integration such as `@threatlib/storage` provides one; a browser would write one on IndexedDB).
export {
  LocalList,
  type LocalListMatchMode,
  type LocalListOptions,
  type LocalListVerdict,
  parseLocalList,
} from './local-list.js';
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
