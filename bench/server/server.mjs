// One server of the server benchmark, in a process of its own: `ours` (APIServer with authentication, the rate limit,
// metrics and the problem handler, serving POST /api/v1/threats/scan) or `bare` (fastify with one route that parses
// the same body, calls the same client.correlate of a client configured the same way and answers the same JSON).
// Both clients are made alike from the blocklist file the parent names; the ratio measures the server's own overhead.
// Reports its URL to the parent over IPC.
import { silentLogger, ThreatClient } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import Fastify from 'fastify';

const mode = process.argv[2];
process.once('SIGINT', () => process.exit(0));
process.once('message', async ({ blocklist }) => {
  // The same client for both: no feed asked (nothing leaves the machine), the bench's blocklist, defaults otherwise
  // (the built-in warninglists, the memory cache, alerting on).
  const client = new ThreatClient(
    { sources: [], strategy: 'aggressive', lists: [{ name: 'bench', file: blocklist }] },
    { env: false, logger: silentLogger },
  );
  if (mode === 'ours') {
    const server = new APIServer({
      port: 0,
      authentication: { type: 'bearer', tokens: ['bench-token'] },
      // Raised out of the way: 50 connections from one address would be limited otherwise (the limiter still runs).
      rateLimit: { max: 1e9 },
    });
    server.mount('/api/v1', client);
    process.send({ url: `${await server.start()}/api/v1/threats/scan` });
    return;
  }
  const app = Fastify({ logger: false });
  // What ours answers (its toScan): the correlation without its contributions and thresholds.
  app.post('/scan', async (request) => {
    const { indicator, type } = request.body;
    const c = await client.correlate(indicator, type === undefined ? {} : { type });
    return {
      indicator: c.indicator,
      type: c.type,
      verdict: c.verdict,
      isThreat: c.isThreat,
      riskScore: c.riskScore,
      confidence: c.confidence,
      consensus: c.consensus,
      results: c.results,
      ...(c.warninglist ? { warninglist: c.warninglist } : {}),
      startedAt: c.startedAt,
      durationMs: c.durationMs,
    };
  });
  process.send({ url: `${await app.listen({ port: 0, host: '127.0.0.1' })}/scan` });
});
