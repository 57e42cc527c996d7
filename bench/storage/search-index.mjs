// bench/storage, search index part: 50,000 documents indexed through SearchIndexStorage.indexMany beside the
// Elasticsearch client's bulk helper (client.helpers.bulk) fed the same documents with the same batch size, into the
// same kind of daily indices with the same mapping, on the e2e Elasticsearch. Prints throughput and ours/raw.
//   bash e2e/services up elasticsearch
import { Client } from '@elastic/elasticsearch';
import { SearchIndexStorage } from '@threatlib/storage';
import { fmt, median, orderOf, printFigure, setting, settle, urlOpen } from '../support.mjs';

const NODE = process.env.BENCH_ES_NODE ?? 'http://127.0.0.1:19200';
const AUTH = {
  username: process.env.BENCH_ES_USERNAME ?? 'threatlib',
  password: process.env.BENCH_ES_PASSWORD ?? 'threatlib-e2e-password',
};
const DOCUMENTS = setting('BENCH_ES_DOCUMENTS', 50_000, 1_000);
/** SearchIndexStorage's defaults (`batchSize`, `concurrency`): the raw helper is set to do the same. */
const BATCH_SIZE = 1_000;
const CONCURRENCY = 2;
const ROUNDS = setting('BENCH_ROUNDS', 6, 2);
const run = `${process.pid}-${Date.now().toString(36)}`;
const DAY = 86_400_000;

/** The same 50,000 documents for both: the documented shape, spread over three days (three daily indices). */
function makeDocuments(now) {
  const types = ['malware', 'phishing', 'botnet', 'c2', 'spam'];
  const feeds = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'];
  return Array.from({ length: DOCUMENTS }, (_, i) => ({
    indicator: i % 2 === 0 ? `host-${i}.bench.threatlib-test.net` : `198.51.${(i >> 8) & 255}.${i & 255}`,
    threat_type: types[i % types.length],
    confidence: (i * 37) % 101,
    sources: feeds.filter((_, f) => (i >> f) & 1 || f === i % feeds.length),
    '@timestamp': new Date(now - (i % 3) * DAY - (i % 3_600) * 1_000).toISOString(),
  }));
}

const dailyIndex = (base, timestamp) => `${base}-${timestamp.slice(0, 10).replaceAll('-', '.')}`;

/** A store on fresh indices; started (template and indices made) before anything is timed. */
async function startedStore(label) {
  const base = `threatlib-bench-${label}-${run}`;
  const storage = new SearchIndexStorage({
    node: NODE,
    auth: AUTH,
    indices: {
      threats: `${base}-threats`,
      campaigns: `${base}-campaigns`,
      indicators: `${base}-indicators`,
      alerts: `${base}-alerts`,
    },
    // Its defaults otherwise (the goal is on default settings): batches of 1,000 documents or 5 MB, two in flight.
  });
  await storage.start();
  return { storage, base };
}

async function drop(client, base) {
  await client.indices.delete({ index: `${base}-*`, ignore_unavailable: true, allow_no_indices: true });
  await client.indices.deleteIndexTemplate({ name: `threatlib-${base}-threats` }, { ignore: [404] });
  await client.indices.deleteIndexTemplate({ name: `threatlib-${base}-campaigns` }, { ignore: [404] });
}

async function count(client, index) {
  await client.indices.refresh({ index });
  return (await client.count({ index })).count;
}

function countBulks(client) {
  const counter = { bulks: 0 };
  client.diagnostic.on('request', (_error, event) => {
    if (event?.meta.request.params.path === '/_bulk') counter.bulks += 1;
  });
  return counter;
}

async function ours(client, documents, round) {
  const { storage, base } = await startedStore(`ours-${round}`);
  const bulks = countBulks(storage.client);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = await storage.indexMany('threats', documents);
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  await storage.stop();
  if (report.failed.length > 0)
    throw new Error(`ours: ${report.failed.length} refused, first: ${report.failed[0].reason}`);
  const stored = await count(client, `${base}-threats`);
  await drop(client, base);
  return { rate: (documents.length / ms) * 1000, bulks: bulks.bulks, stored, cpuMs };
}

/** CPU time this process used since `start` (a `process.cpuUsage()`), in ms: less swayed by other load than wall time. */
function cpuMsSince(start) {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * What makes the helper cut its requests at BATCH_SIZE documents, as ours does: it sends once it holds flushBytes
 * (action and source lines, as it counts them), so the average bytes of BATCH_SIZE of these documents.
 */
function flushBytesFor(index, documents) {
  let bytes = 0;
  for (const document of documents) {
    const action = { index: { _index: dailyIndex(index, document['@timestamp']) } };
    bytes += Buffer.byteLength(JSON.stringify(action)) + Buffer.byteLength(JSON.stringify(document));
  }
  return Math.floor((bytes / documents.length) * (BATCH_SIZE - 0.5));
}

/** The raw helper; with `ids`, each document gets an id of the same form as ours (to tell apart what ids cost). */
async function raw(client, documents, round, ids = false) {
  // The same template (mapping, alias) as ours: made by a store that is then put away, not timed.
  const { storage, base } = await startedStore(`raw-${round}`);
  await storage.stop();
  const index = `${base}-threats`;
  const flushBytes = flushBytesFor(index, documents);
  const rawClient = new Client({ node: NODE, auth: AUTH });
  const bulks = countBulks(rawClient);
  const tag = Math.random().toString(36).slice(2, 10);
  let counter = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stats = await rawClient.helpers.bulk({
    datasource: documents,
    onDocument: (document) => {
      const _index = dailyIndex(index, document['@timestamp']);
      if (!ids) return { index: { _index } };
      counter += 1;
      return { index: { _index, _id: `${Date.now().toString(36).padStart(9, '0')}${tag}${counter.toString(36)}` } };
    },
    flushBytes,
    concurrency: CONCURRENCY,
  });
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  await rawClient.close();
  if (stats.failed > 0) throw new Error(`raw: ${stats.failed} failed`);
  const stored = await count(client, index);
  await drop(client, base);
  return { rate: (documents.length / ms) * 1000, bulks: bulks.bulks, stored, cpuMs };
}

if (!(await urlOpen(NODE, 9200))) {
  console.error(`  needs Elasticsearch at ${NODE} (bash e2e/services up elasticsearch)`);
  process.exit(1);
}
const client = new Client({ node: NODE, auth: AUTH });
const documents = makeDocuments(Date.now());
console.log(
  `  ${fmt(DOCUMENTS)} documents, batch ${fmt(BATCH_SIZE)}, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, ${NODE}`,
);

// A warm-up of each (JIT, connections, the server's caches), not counted.
await raw(client, documents.slice(0, Math.min(5_000, DOCUMENTS)), 'warm');
await ours(client, documents.slice(0, Math.min(5_000, DOCUMENTS)), 'warm');

const results = { ours: [], raw: [], 'raw+ids': [] };
const runners = {
  ours: (round) => ours(client, documents, round),
  raw: (round) => raw(client, documents, round),
  'raw+ids': (round) => raw(client, documents, `${round}-ids`, true),
};
for (let round = 0; round < ROUNDS; round += 1) {
  // Rotate who goes first, so that none always runs on a server busy merging another's segments.
  for (const who of orderOf(round, Object.keys(runners))) {
    settle();
    const result = await runners[who](round);
    if (result.stored !== DOCUMENTS) throw new Error(`${who}: ${result.stored} documents stored, not ${DOCUMENTS}`);
    results[who].push(result);
    console.log(
      `  round ${round + 1} ${who.padEnd(7)} ${fmt(result.rate).padStart(7)} docs/s, ${fmt(result.cpuMs).padStart(5)} ms client CPU (${((result.cpuMs * 1000) / DOCUMENTS).toFixed(1)} µs/doc), ${result.bulks} bulk requests`,
    );
  }
}
await client.close();

const figure = (who, pick) => median(results[who].map(pick));
const oursRate = figure('ours', (r) => r.rate);
const rawRate = figure('raw', (r) => r.rate);
// Each round's runs are next to each other in time: their ratio is less swayed by what else the machine does than
// the ratio of the medians.
const ratio = median(results.ours.map((r, round) => r.rate / results.raw[round].rate));
const idsRatio = median(results['raw+ids'].map((r, round) => r.rate / results.raw[round].rate));
// Raw's client CPU over ours: like the rate ratio, above 1 when ours costs less.
const cpuRatio = median(results.ours.map((r, round) => results.raw[round].cpuMs / r.cpuMs));
console.log('');
console.log('  | figure | ours (SearchIndexStorage.indexMany) | raw (client.helpers.bulk) | raw with ids like ours |');
console.log('  |---|---|---|---|');
console.log(
  `  | docs/s (median of ${ROUNDS}) | ${fmt(oursRate)} | ${fmt(rawRate)} | ${fmt(figure('raw+ids', (r) => r.rate))} |`,
);
console.log(
  `  | client CPU ms per run (median) | ${fmt(figure('ours', (r) => r.cpuMs))} | ${fmt(figure('raw', (r) => r.cpuMs))} | ${fmt(figure('raw+ids', (r) => r.cpuMs))} |`,
);
console.log(
  `  | bulk requests per run | ${results.ours[0].bulks} | ${results.raw[0].bulks} | ${results['raw+ids'][0].bulks} |`,
);
console.log('');
console.log(
  `  ours/raw = ${ratio.toFixed(2)} by wall time, ${cpuRatio.toFixed(2)} by client CPU time (medians of the rounds' ratios); ratio of the medians ${(oursRate / rawRate).toFixed(2)}`,
);
printFigure(
  'storage/search-index',
  ratio,
  `by wall time, client CPU ratio ${cpuRatio.toFixed(2)} (median of ${ROUNDS} rounds)`,
);
console.log(`  raw with ids / raw = ${idsRatio.toFixed(2)} (what giving each document its id costs the server)`);
