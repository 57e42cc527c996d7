// The page of the browser benchmark (run.mjs bundles it with esbuild for the browser): what a user's page does,
// `import { ThreatClient } from '@threatlib/core'`, and one function the benchmark calls through Playwright.
import { silentLogger, ThreatClient } from '@threatlib/core';

/**
 * Scans `indicators` once through the feed (reached through the page server's `corsProxy` route, which forwards to
 * the feed emulator) so that every answer is in the client's verdict cache, then `rounds` times more from the cache
 * alone. Resolves to the milliseconds of each cached pass and how many of its results said `cached: true`.
 */
globalThis.threatlibBench = async ({ indicators, rounds, endpoint, corsProxy }) => {
  const client = new ThreatClient(
    {
      sources: ['feed_abuse'],
      apiKeys: { feed_abuse: { key: 'bench', endpoint } },
      browser: { corsProxy },
      security: { enforceHttps: false },
      warninglists: { builtin: false },
      performance: {
        maxConcurrency: 20,
        rateLimit: { perFeed: { feed_abuse: { requestsPerSecond: 100_000, burstSize: 100_000 } } },
      },
      caching: { enabled: true, type: 'memory', maxSize: 100_000 },
    },
    { env: false, logger: silentLogger },
  );
  const pass = async () => {
    let results = 0;
    let cached = 0;
    const statuses = {};
    const started = performance.now();
    for await (const item of client.scoutMany(indicators)) {
      if (!item.ok) throw new Error(`the page could not scan ${item.input}: ${item.error?.message}`);
      for (const result of item.result.results) {
        results += 1;
        statuses[result.status] = (statuses[result.status] ?? 0) + 1;
        if (result.cached) cached += 1;
      }
    }
    return { ms: performance.now() - started, results, cached, statuses };
  };
  try {
    const first = await pass();
    const cachedPasses = [];
    for (let round = 0; round < rounds; round += 1) cachedPasses.push(await pass());
    return { first, cachedPasses };
  } finally {
    await client.stop();
  }
};
