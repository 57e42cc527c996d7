// One server of the server benchmark: `ours` (threatlib on the shipped example list, warm) or `bare` (fastify
// returning a fixed JSON body). Reports its URL to the parent over IPC.
import { silentLogger, ThreatClient } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import Fastify from 'fastify';

const mode = process.argv[2];
process.once('SIGINT', () => process.exit(0));
process.once('message', async ({ response }) => {
  if (mode === 'ours') {
    const { createRequire } = await import('node:module');
    const { dirname, join } = await import('node:path');
    const core = dirname(createRequire(import.meta.url).resolve('@threatlib/core/package.json'));
    const client = new ThreatClient(
      {
        sources: [],
        strategy: 'aggressive',
        lists: [{ name: 'example', file: join(core, 'examples/lists/example-blocklist.txt') }],
      },
      { env: false, logger: silentLogger },
    );
    const server = new APIServer({
      port: 0,
      authentication: { type: 'bearer', tokens: ['bench-token'] },
      rateLimit: { max: 1e9 },
    });
    server.mount('/api/v1', client);
    process.send({ url: await server.start() });
  } else {
    const app = Fastify({ logger: false });
    app.post('/scan', async (_request, reply) => reply.type('application/json').send(response));
    process.send({ url: await app.listen({ port: 0, host: '127.0.0.1' }) });
  }
});
