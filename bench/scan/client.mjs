// One client of the scan benchmark, run in a child process of run.mjs so that its peak RSS is its own.
// run.mjs sends { mode: 'ours' | 'naive', inputFile, endpoints, settings }; this answers one message with the figures
// and exits. See ../README.md for what each figure means.
import { readFile } from 'node:fs/promises';
import { parseIndicator, silentLogger, ThreatClient } from '@threatlib/core';
import { abuseipdbFeed, crowdsecFeed, otxFeed, urlhausFeed, virustotalFeed } from '@threatlib/core/feeds';
import { createHttpClient } from '@threatlib/core/integration';
import pLimit from 'p-limit';

const FEEDS = [urlhausFeed, otxFeed, abuseipdbFeed, crowdsecFeed, virustotalFeed];

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function count(tally, key) {
  tally[key] = (tally[key] ?? 0) + 1;
}

async function runOurs(indicators, endpoints, settings) {
  const apiKeys = {};
  const perFeed = {};
  for (const feed of FEEDS) {
    apiKeys[feed.id] = { key: 'bench', endpoint: endpoints[feed.id], timeout: settings.timeoutMs };
    perFeed[feed.id] = { requestsPerSecond: settings.requestsPerSecond, burstSize: settings.burst };
  }
  const client = new ThreatClient(
    {
      sources: FEEDS.map((feed) => feed.id),
      apiKeys,
      security: { enforceHttps: false },
      warninglists: { builtin: false },
      performance: {
        maxConcurrency: settings.maxConcurrency,
        retryAttempts: 3,
        retryDelay: 50,
        backoffMultiplier: 2,
        rateLimit: { perFeed },
        // The emulator fails 1% of requests on purpose; at 1,000 requests a second the default breaker (5 failures in
        // 5 minutes) would open on that noise within a second. A service this busy sets its threshold to match.
        circuitBreaker: { failureThreshold: 1000 },
      },
      caching: { enabled: process.env.BENCH_NO_CACHE !== '1', type: 'memory', maxSize: 100_000 },
    },
    { env: false, logger: silentLogger },
  );

  const latencies = [];
  const statuses = {};
  let cached = 0;
  let invalidInputs = 0;
  const started = performance.now();
  for await (const item of client.scoutMany(indicators)) {
    progress.done += 1;
    if (!item.ok) {
      invalidInputs += 1;
      continue;
    }
    latencies.push(item.result.durationMs);
    for (const result of item.result.results) {
      count(statuses, result.status);
      if (result.cached) cached += 1;
    }
  }
  const wallMs = performance.now() - started;

  let retries;
  let feedStatus;
  if (typeof client.feedStatus === 'function') {
    feedStatus = client.feedStatus();
    retries = feedStatus.reduce((sum, entry) => sum + (entry.requests?.retries ?? 0), 0);
  }
  await client.stop();
  return { wallMs, latencies, statuses, cached, invalidInputs, retries, feedStatus };
}

async function runNaive(indicators, endpoints, settings) {
  const http = createHttpClient();
  const limit = pLimit(settings.maxConcurrency);
  const latencies = [];
  const statuses = {};
  let invalidInputs = 0;

  const started = performance.now();
  await Promise.all(
    indicators.map(async (input) => {
      let indicator;
      try {
        indicator = parseIndicator(input);
      } catch {
        invalidInputs += 1;
        return;
      }
      let first = Number.POSITIVE_INFINITY;
      let last = 0;
      const feeds = FEEDS.filter((feed) => feed.supportedTypes.includes(indicator.type));
      await Promise.all(
        feeds.map((feed) =>
          limit(async () => {
            first = Math.min(first, performance.now());
            try {
              const result = await feed.lookup(indicator, {
                signal: AbortSignal.timeout(settings.timeoutMs),
                apiKey: 'bench',
                endpoint: endpoints[feed.id],
                http,
                options: {},
                includeRaw: false,
                logger: silentLogger,
              });
              count(statuses, result.status);
            } catch {
              // The contract says a lookup reports failures as a status; a throw is counted apart.
              count(statuses, 'thrown');
            }
            last = Math.max(last, performance.now());
          }),
        ),
      );
      progress.done += 1;
      if (feeds.length > 0) latencies.push(last - first);
    }),
  );
  const wallMs = performance.now() - started;
  await http.close();
  return { wallMs, latencies, statuses, cached: 0, invalidInputs };
}

/** Inputs finished so far, for the diagnosis below. */
const progress = { done: 0, total: 0, reported: false };

// A process exits when nothing it waits on holds a handle. If that happens mid-scan, the client awaited something
// that keeps no handle open (an unref'd timer, say): a user's script would end the same way, silently.
process.on('exit', (code) => {
  if (progress.reported || progress.total === 0) return;
  process.stderr.write(
    `client: the process ran out of handles and exited (code ${code}) after ${progress.done} of ${progress.total} inputs: the client awaits something that holds no handle (an unref'd timer?)\n`,
  );
});

// BENCH_TRACE_MEMORY=1 prints this process's memory every 5 s to stderr, to see where peak RSS comes from.
if (process.env.BENCH_TRACE_MEMORY === '1') {
  const mb = (n) => (n / 1e6).toFixed(0);
  setInterval(() => {
    const m = process.memoryUsage();
    process.stderr.write(
      `memory: rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB, buffers ${mb(m.arrayBuffers)} MB (${progress.done} done)\n`,
    );
  }, 5000).unref();
}

process.once('message', async ({ mode, inputFile, endpoints, settings }) => {
  const indicators = JSON.parse(await readFile(inputFile, 'utf8'));
  progress.total = indicators.length;
  const run = mode === 'ours' ? runOurs : runNaive;
  // The CPU time of this process over the scan (and its stop): what the client costs, steadier than wall time.
  const cpu = process.cpuUsage();
  const { latencies, ...figures } = await run(indicators, endpoints, settings);
  const used = process.cpuUsage(cpu);
  figures.cpuMs = (used.user + used.system) / 1000;
  progress.reported = true;
  latencies.sort((a, b) => a - b);
  process.send(
    {
      ...figures,
      scanned: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxRssKiB: process.resourceUsage().maxRSS,
    },
    // Disconnecting closes the IPC channel; the process then exits by itself unless the client left a handle open,
    // which run.mjs notices and reports.
    () => process.disconnect(),
  );
});
