import type { FeedVerdict } from '../feeds/feed-result.js';

/** What the demo data set says of one indicator (every feed that looks up its type says the same). */
export interface DemoEntry {
  readonly verdict: FeedVerdict;
  readonly score: number;
  readonly categories: readonly string[];
  readonly malwareFamilies: readonly string[];
}

/**
 * The bundled demo data set of `browser.fallbackMode: 'demo'`: a few made-up answers about addresses reserved for
 * documentation (RFC 5737), names under `.example` (RFC 2606) and the EICAR test file's hashes, so that a page can
 * try the library with no key and no network. None of it is intelligence about a real host.
 */
export const DEMO_DATA: Readonly<Record<string, DemoEntry>> = {
  '198.51.100.23': { verdict: 'malicious', score: 0.92, categories: ['botnet'], malwareFamilies: ['demo-bot'] },
  '203.0.113.66': { verdict: 'suspicious', score: 0.55, categories: ['scanner'], malwareFamilies: [] },
  '192.0.2.10': { verdict: 'clean', score: 0, categories: [], malwareFamilies: [] },
  'malware.example': { verdict: 'malicious', score: 0.9, categories: ['malware'], malwareFamilies: ['demo-dropper'] },
  'phishing.example': { verdict: 'suspicious', score: 0.6, categories: ['phishing'], malwareFamilies: [] },
  '44d88612fea8a8f36de82e1278abb02f': {
    verdict: 'malicious',
    score: 1,
    categories: ['test-file'],
    malwareFamilies: ['eicar'],
  },
  '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f': {
    verdict: 'malicious',
    score: 1,
    categories: ['test-file'],
    malwareFamilies: ['eicar'],
  },
};
