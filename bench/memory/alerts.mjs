// The memory bench's alert part, in a fresh process run with --expose-gc: hand-written alerts added to a client's
// alert store (`client.alerts.add`, the memory store by default), then what they cost: heap per alert beside its JSON
// size (after a full collection), and RSS growth per alert (before it: what validation's garbage costs meanwhile).
// Reports to the parent over IPC.
import { silentLogger, ThreatClient } from '@threatlib/core';

const count = Number(process.argv[2]);
const gc = globalThis.gc;
if (!gc) throw new Error('alerts.mjs needs --expose-gc');

/** A hand-written alert in the documented shape (INTERFACE.md 2.1), made when it is added (the input is not kept). */
function alertInput(i) {
  const domain = `c2-${i.toString(36)}.bench.threatlib-test.net`;
  const indicators = [{ type: 'domain', value: domain, confidence: 60 + (i % 40) }];
  if (i % 3 === 0)
    indicators.push({ type: 'ip', value: `45.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, confidence: 70 });
  return {
    title: `Outbound connection to a known C2 domain (${domain})`,
    severity: 'high',
    description: `Host ws-${i % 5000} resolved and contacted ${domain}; flagged by 3 of 5 feeds`,
    indicators,
    timestamp: new Date(Date.parse('2025-06-01T00:00:00.000Z') + i * 1000).toISOString(),
  };
}

// A feed configured (none is asked here): the client's defaults otherwise, the memory alert store among them.
const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger: silentLogger });
// Warm: the schemas compiled, the store's structures made.
for (let i = 0; i < 200; i += 1) await client.alerts.add(alertInput(1_000_000 + i));
gc();
const before = process.memoryUsage();
let jsonBytes = 0;
for (let i = 0; i < count; i += 1) {
  const stored = await client.alerts.add(alertInput(i));
  jsonBytes += Buffer.byteLength(JSON.stringify(stored));
}
const grown = process.memoryUsage();
gc();
const after = process.memoryUsage();

// For scale, not the goal: the heap the same alerts take as plain objects (each stored alert's JSON parsed back and
// kept), what V8 needs for that shape of data with no store around it.
const plain = [];
let cursor;
do {
  const page = await client.alerts.list({ limit: 1_000, ...(cursor ? { cursor } : {}) });
  for (const alert of page.items) plain.push(JSON.parse(JSON.stringify(alert)));
  cursor = page.nextCursor;
} while (cursor);
gc();
const parsed = process.memoryUsage();
process.send({
  count,
  jsonBytes: jsonBytes / count,
  heapBytes: (after.heapUsed - before.heapUsed) / count,
  plainHeapBytes: (parsed.heapUsed - after.heapUsed) / plain.length,
  rssGrowthBytes: (grown.rss - before.rss) / count,
  rssRetainedBytes: (after.rss - before.rss) / count,
});
if (plain.length === 0) console.log(''); // keeps the parsed copies alive to the measurement above
await client.stop();
process.disconnect();
