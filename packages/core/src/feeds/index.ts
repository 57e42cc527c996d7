// The `@threatlib/core/feeds` entry: what a feed author builds with. The `Feed` contract a client's `registerFeed`
// takes, the helpers that turn a vendor's answer into a `FeedLookupResult` (`answer`, `failure`,
// `failureFromResponse`, `parseBody`), and the built-in adapters themselves, for a program that asks one feed without a
// client, and each built-in feed's default endpoint and key header (`BUILTIN_FEEDS`: what a proxy adding keys
// server-side may reach). Requests go through the `HttpClient` of `@threatlib/core/integration`.

export { abuseipdbFeed } from './abuseipdb.js';
export { BUILTIN_FEED_LIST } from './builtin-feeds.js';
export { crowdsecFeed } from './crowdsec.js';
export type { Feed, FeedLookupContext, FeedLookupResult } from './feed.js';
export { BUILTIN_FEEDS, isBuiltinFeedId } from './feed-ids.js';
export {
  type AnswerFields,
  answer,
  failure,
  failureFromResponse,
  type Parsed,
  parseBody,
} from './feed-response.js';
export { otxFeed } from './otx.js';
export { urlhausFeed } from './urlhaus.js';
export { virustotalFeed } from './virustotal.js';
