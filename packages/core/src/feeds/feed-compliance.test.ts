import { startFeedEmulator } from '@threatlib/feed-emulator';
import { describe } from 'vitest';
import { abuseipdbFeed } from './abuseipdb.js';
import { crowdsecFeed } from './crowdsec.js';
import { feedComplianceSuite } from './feed-compliance.test-suite.js';
import { otxFeed } from './otx.js';
import { urlhausFeed } from './urlhaus.js';
import { virustotalFeed } from './virustotal.js';

const start = () => startFeedEmulator();

describe('feed compliance: URLhaus', () => feedComplianceSuite({ feed: urlhausFeed, emulated: 'feed_urls', start }));
describe('feed compliance: OTX', () => feedComplianceSuite({ feed: otxFeed, emulated: 'feed_otx', start }));
describe('feed compliance: AbuseIPDB', () =>
  feedComplianceSuite({ feed: abuseipdbFeed, emulated: 'feed_abuse', start }));
describe('feed compliance: CrowdSec CTI', () =>
  feedComplianceSuite({ feed: crowdsecFeed, emulated: 'feed_cti', start }));
describe('feed compliance: VirusTotal', () =>
  feedComplianceSuite({ feed: virustotalFeed, emulated: 'feed_scan', start }));
