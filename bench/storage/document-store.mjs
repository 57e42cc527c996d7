// bench/storage, document store part, on the e2e FerretDB, in two comparisons:
//  1. the goal's, default settings: correlations kept through the storage integration (a client's
//     `integrations.storage`, its batcher writing each batch's threat records and folding its sightings into the
//     indicators' histories, `indicatorHistory: true`) beside the mongodb driver doing the same server work by hand:
//     insertMany of the same threat documents in batches of the same size (500), then the same history upserts
//     (FerretDB 1.x takes milliseconds an update, so this part writes fewer records);
//  2. an easier path printed beside: the same with `indicatorHistory: false`, beside insertMany alone.
// Rounds alternate who goes first (ABBA); prints throughput, the client's CPU time per record, and ours/raw (the
// median of the rounds' ratios) for each.
//   bash e2e/services up ferretdb
import { ThreatClient } from '@threatlib/core';
import { DocumentStoreStorage } from '@threatlib/storage';
import { MongoClient, ObjectId } from 'mongodb';
import { fmt, median, orderOf, printFigure, setting, settle, urlOpen } from '../support.mjs';

const URI = process.env.BENCH_MONGODB_URI ?? 'mongodb://127.0.0.1:27018';
/** Records of the easier path, `indicatorHistory: false` (0 skips it). */
const RECORDS = setting('BENCH_MONGO_RECORDS', 50_000, 500);
/** Records of the goal's comparison, default settings: each batch costs FerretDB an update per distinct indicator. */
const HISTORY_RECORDS = setting('BENCH_MONGO_HISTORY_RECORDS', 10_000, 100);
/**
 * Distinct indicators among the records: a watch list scanned again and again, so most history writes update one.
 * FerretDB 1.x takes longer for each upsert the more histories it holds (its update reads more than the one
 * document), so this also bounds how long a run takes; both sides write the same histories.
 */
const INDICATORS = setting('BENCH_MONGO_INDICATORS', 1_000, 50);
/** The integration's default `batching.maxBatch`; the raw side writes batches of the same size. */
const BATCH_SIZE = setting('BENCH_BATCH_SIZE_MONGO', 500);
const ROUNDS = setting('BENCH_ROUNDS_MONGO', 4, 2);
const TTL = 30 * 86_400;
/** FerretDB 1.24 never answers an update command that modifies 100 or more documents: ours sends 50 at a time, so does raw. */
const UPDATES_PER_COMMAND = 50;
const run = `${process.pid}_${Date.now().toString(36)}`;
let runs = 0;
/** A database of this process no other run uses (an interrupted run's is dropped at the end). */
function databaseFor(who, round) {
  runs += 1;
  return `bench_${run}_${who}_${round}_${runs}`;
}

/** This process's CPU time since `from` (user + system), in ms: what the client itself costs, steadier than wall time. */
const cpuMsSince = (from) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1000;
};

/** Correlations as the client's `correlated` event carries them: five feeds asked, every fifth a threat. */
function makeCorrelations(count, distinct = INDICATORS) {
  const feeds = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'];
  return Array.from({ length: count }, (_, i) => {
    const n = i % distinct;
    const threat = n % 5 === 0;
    const confidence = threat ? 80 + (n % 20) : n % 40;
    return {
      indicator: n % 2 === 0 ? `host-${n}.bench.threatlib-test.net` : `198.51.${(n >> 8) & 255}.${n & 255}`,
      type: n % 2 === 0 ? 'domain' : 'ipv4',
      confidence,
      verdict: threat ? 'malicious' : confidence > 20 ? 'suspicious' : 'clean',
      isThreat: threat,
      consensus: threat ? 3 : 0,
      sourcesQueried: 5,
      sourcesAnswered: 5,
      riskScore: Math.max(1, Math.round(confidence / 10)),
      strategy: 'balanced',
      thresholds: { confidence: 0.7, consensus: 2, riskScore: 6 },
      contributions: feeds.map((feed, f) => ({
        feed,
        status: 'ok',
        verdict: threat && f < 3 ? 'malicious' : 'clean',
        counted: true,
        weight: 0.8,
        recency: 1,
        score: threat && f < 3 ? 0.9 : 0,
        contribution: threat && f < 3 ? confidence / 3 : 0,
        reason: threat && f < 3 ? 'listed as malware distribution' : 'not listed',
      })),
      failures: [],
    };
  });
}

async function countOf(mongo, database) {
  const db = mongo.db(database);
  const threats = await db.collection('threats').countDocuments();
  const histories = await db
    .collection('indicators')
    .find({}, { projection: { timesSeen: 1 } })
    .toArray();
  return { threats, histories: histories.length, sightings: histories.reduce((sum, h) => sum + h.timesSeen, 0) };
}

/** Ours: a client with `integrations.storage`; the correlations arrive on its bus as scans would announce them. */
async function ours(mongo, correlations, round, history) {
  const database = databaseFor('ours', round);
  const client = new ThreatClient(
    {
      sources: ['feed_urls'],
      logging: { enabled: false },
      // The whole burst is held: a scan never arrives this fast, and nothing may be dropped here.
      integrations: {
        storage: {
          type: 'mongodb',
          uri: URI,
          database,
          indicatorHistory: history,
          batching: { maxBuffered: correlations.length },
        },
      },
    },
    { env: false, loadIntegrationPackage: () => import('@threatlib/storage') },
  );
  await client.start(); // connects and makes the indexes: not timed
  const storage = client.integration('storage');
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const correlation of correlations) client.events.emit('correlated', correlation);
  await storage.flush();
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  const stats = storage.stats();
  await client.stop();
  if (stats.failedWrites > 0) throw new Interrupted(`ours: ${stats.failedWrites} writes failed and were retried`);
  if (stats.dropped > 0 || stats.written !== correlations.length) {
    throw new Error(`ours: ${stats.written} written, ${stats.dropped} dropped, of ${correlations.length}`);
  }
  const stored = await countOf(mongo, database);
  await mongo.db(database).dropDatabase();
  return { rate: (correlations.length / ms) * 1000, cpuMs, batches: stats.batches, ...stored };
}

/** The history upserts of one batch, one per indicator: what the integration sends, written out by hand. */
function historyUpserts(batch, seenAt) {
  const byIndicator = new Map();
  for (const c of batch) {
    const entry = byIndicator.get(c.indicator);
    if (entry) {
      entry.count += 1;
      entry.last = c;
    } else byIndicator.set(c.indicator, { last: c, count: 1 });
  }
  return [...byIndicator.values()].map(({ last, count }) => ({
    updateOne: {
      filter: { _id: last.indicator },
      update: {
        $setOnInsert: { indicator: last.indicator, type: last.type },
        $min: { firstSeen: seenAt },
        $max: {
          lastSeen: seenAt,
          latest: { seenAt, verdict: last.verdict, confidence: last.confidence, riskScore: last.riskScore },
        },
        $inc: { timesSeen: count },
      },
      upsert: true,
    },
  }));
}

/**
 * Raw: the driver writes the same documents and upserts, batch after batch, into collections with the same indexes.
 * Its time in the upserts is measured too, to show where the time goes.
 */
async function raw(mongo, correlations, round, history) {
  const database = databaseFor('raw', round);
  // The same indexes as ours, made by a store that is then put away: not timed.
  const prepare = new DocumentStoreStorage({ uri: URI, database });
  await prepare.start();
  await prepare.stop();
  const db = mongo.db(database);
  const threats = db.collection('threats');
  const indicators = db.collection('indicators');
  let batches = 0;
  let upsertMs = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < correlations.length; i += BATCH_SIZE) {
    const batch = correlations.slice(i, i + BATCH_SIZE);
    const scanDate = new Date();
    const expiresAt = new Date(scanDate.getTime() + TTL * 1000);
    await threats.insertMany(
      batch.map((c) => ({
        _id: new ObjectId().toHexString(),
        indicator: c.indicator,
        results: c,
        scanDate,
        ttl: TTL,
        expiresAt,
      })),
      { ordered: false },
    );
    batches += 1;
    if (!history) continue;
    const upserting = performance.now();
    const upserts = historyUpserts(batch, scanDate);
    for (let u = 0; u < upserts.length; u += UPDATES_PER_COMMAND) {
      await indicators.bulkWrite(upserts.slice(u, u + UPDATES_PER_COMMAND), { ordered: true });
    }
    upsertMs += performance.now() - upserting;
  }
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpu);
  const stored = await countOf(mongo, database);
  await db.dropDatabase();
  return { rate: (correlations.length / ms) * 1000, cpuMs, batches, upsertShare: upsertMs / ms, ...stored };
}

/** A run the server interrupted (a restart, a dropped connection): its time says nothing, so it is run again. */
class Interrupted extends Error {}

/** Runs `run` until one goes through uninterrupted, at most three times. */
async function uninterrupted(who, run) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      const lost = error instanceof Interrupted || /closed|ECONNREFUSED|timed out|ECONNRESET/.test(error?.message);
      if (!lost || attempt === 3) throw error;
      console.log(`  ${who}: interrupted (${error.message}); run again`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  }
}

if (!(await urlOpen(URI, 27017))) {
  console.error(`  needs a MongoDB wire-protocol server at ${URI} (bash e2e/services up ferretdb)`);
  process.exit(1);
}
const mongo = new MongoClient(URI);

/** One comparison: a warm-up of each, then `ROUNDS` rounds alternating who goes first; prints a table and the ratio. */
async function compare({ title, records, history, goal }) {
  const correlations = makeCorrelations(records);
  const distinct = Math.min(INDICATORS, records);
  console.log(`\n### ${title}\n`);
  console.log(
    `  ${fmt(records)} correlations of ${fmt(distinct)} indicators, batch ${fmt(BATCH_SIZE)}, ${ROUNDS} rounds, ${URI}`,
  );
  // A warm-up of each (JIT, connections, the server's caches), not counted.
  const warm = makeCorrelations(Math.min(5_000, Math.ceil(records / 2)));
  await uninterrupted('warm-up raw', () => raw(mongo, warm, 'warm', history));
  await uninterrupted('warm-up ours', () => ours(mongo, warm, 'warm', history));

  const results = { ours: [], raw: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate who goes first (ABBA), so that neither always runs on a server still settling the other's writes.
    for (const who of orderOf(round, ['ours', 'raw'])) {
      settle();
      const result = await uninterrupted(`round ${round + 1} ${who}`, () =>
        who === 'ours' ? ours(mongo, correlations, round, history) : raw(mongo, correlations, round, history),
      );
      const histories = history ? distinct : 0;
      const sightings = history ? records : 0;
      if (result.threats !== records || result.histories !== histories || result.sightings !== sightings) {
        throw new Error(
          `${who}: ${result.threats} threat records, ${result.histories} histories counting ${result.sightings} sightings; expected ${records}, ${histories}, ${sightings}`,
        );
      }
      results[who].push(result);
      const share =
        who === 'raw' && history ? `, ${Math.round(result.upsertShare * 100)}% of it in the history upserts` : '';
      console.log(
        `  round ${round + 1} ${who.padEnd(4)} ${fmt(result.rate)} records/s, client CPU ${fmt(result.cpuMs)} ms (${((result.cpuMs * 1000) / records).toFixed(1)} µs/record), ${result.batches} batches${share}`,
      );
    }
  }

  const oursRate = median(results.ours.map((r) => r.rate));
  const rawRate = median(results.raw.map((r) => r.rate));
  // Each round's two runs are next to each other in time: their ratio is less swayed by what else the machine does
  // than the ratio of the two medians.
  const ratio = median(results.ours.map((r, round) => r.rate / results.raw[round].rate));
  // Raw's client CPU over ours: like the rate ratio, above 1 when ours costs less.
  const cpuRatio = median(results.ours.map((r, round) => results.raw[round].cpuMs / r.cpuMs));
  const rawWhat = history ? 'raw (insertMany + bulkWrite upserts)' : 'raw (insertMany)';
  const oursWhat = history ? 'ours (integrations.storage)' : 'ours (integrations.storage, indicatorHistory: false)';
  console.log('');
  console.log(`  | figure | ${oursWhat} | ${rawWhat} |`);
  console.log('  |---|---|---|');
  console.log(`  | records/s (median of ${ROUNDS}) | ${fmt(oursRate)} | ${fmt(rawRate)} |`);
  console.log(
    `  | client CPU per run, ms (median) | ${fmt(median(results.ours.map((r) => r.cpuMs)))} | ${fmt(median(results.raw.map((r) => r.cpuMs)))} |`,
  );
  console.log(`  | batches per run | ${results.ours[0].batches} | ${results.raw[0].batches} |`);
  console.log(
    `  | stored per run (threat records / histories) | ${fmt(results.ours[0].threats)} / ${fmt(results.ours[0].histories)} | ${fmt(results.raw[0].threats)} / ${fmt(results.raw[0].histories)} |`,
  );
  console.log('');
  console.log(
    `  ours/raw = ${ratio.toFixed(2)} by wall time, ${cpuRatio.toFixed(2)} by client CPU time (medians of the rounds' ratios); ratio of the medians ${(oursRate / rawRate).toFixed(2)}`,
  );
  if (goal)
    printFigure(goal, ratio, `by wall time, client CPU ratio ${cpuRatio.toFixed(2)} (median of ${ROUNDS} rounds)`);
  else console.log('  (an easier path than the default settings, printed beside: not the goal)');
}

// The goal's comparison: the default settings (indicatorHistory on).
await compare({
  title: 'default settings, threat records and indicator histories: ours beside insertMany and the same upserts',
  records: HISTORY_RECORDS,
  history: true,
  goal: 'storage/document-store',
});
if (RECORDS > 0) {
  await compare({
    title: 'easier path, indicatorHistory: false: ours beside insertMany',
    records: RECORDS,
    history: false,
  });
}
// What interrupted runs left behind.
for (const { name } of (await mongo.db().admin().listDatabases()).databases) {
  if (name.startsWith(`bench_${run}_`)) await mongo.db(name).dropDatabase();
}
await mongo.close();
