import { abuseipdbFeed } from './abuseipdb.js';
import { crowdsecFeed } from './crowdsec.js';
import type { Feed } from './feed.js';
import { otxFeed } from './otx.js';
import { urlhausFeed } from './urlhaus.js';
import { virustotalFeed } from './virustotal.js';

/** The five feeds threatlib ships, in the order of `BUILTIN_FEED_IDS`. */
export const BUILTIN_FEED_LIST: readonly Feed[] = [urlhausFeed, otxFeed, abuseipdbFeed, crowdsecFeed, virustotalFeed];
