// The memory bench's scan part, in a fresh process run with --expose-gc: `client.scoutMany` over the user's mix of
// indicators (mostly new, some repeated, some threats) asked of two emulated feeds, on default settings (the memory
// cache, alerting on) but the feeds' pacing (the emulator has no quota). Reports the peak RSS (the kernel's high-water mark) and what stays after a full collection.
import { silentLogger, ThreatClient } from '@threatlib/core';
import { indicatorMix } from '../support.mjs';

const count = Number(process.argv[2]);
const endpoints = JSON.parse(process.argv[3]);
const gc = globalThis.gc;
if (!gc) throw new Error('scan.mjs needs --expose-gc');

const feeds = ['feed_urls', 'feed_otx'];
const client = new ThreatClient(
  {
    sources: feeds,
    apiKeys: Object.fromEntries(feeds.map((feed) => [feed, { key: 'bench', endpoint: endpoints[feed] }])),
    security: { enforceHttps: false },
    // The emulator has no quota: the vendors' default pacing (tens of requests a second) would only make it slow.
    performance: {
      rateLimit: {
        perFeed: Object.fromEntries(feeds.map((feed) => [feed, { requestsPerSecond: 100_000, burstSize: 1_000 }])),
      },
    },
  },
  { env: false, logger: silentLogger },
);
const { indicators } = indicatorMix(count, `memory-${process.pid}`);
// Warm: one scan (lists, warninglists, connections).
for await (const _ of client.scoutMany(['warm-up.bench.threatlib-test.net'])) void _;
gc();
const before = process.memoryUsage();
let scanned = 0;
let threats = 0;
const started = performance.now();
for await (const item of client.scoutMany(indicators)) {
  scanned += 1;
  if (item.ok && item.result.results.some((r) => r.verdict === 'malicious')) threats += 1;
}
const ms = performance.now() - started;
const peakRss = process.resourceUsage().maxRSS * 1024;
gc();
const after = process.memoryUsage();
process.send({
  scanned,
  threats,
  ms,
  beforeRss: before.rss,
  peakRss,
  afterRss: after.rss,
  retainedHeap: after.heapUsed - before.heapUsed,
});
await client.stop();
process.disconnect();
