// Fuzzes the REST server from its own OpenAPI document with schemathesis (e2e/fuzz/schemathesis.sh): every check,
// with the few documented exceptions in e2e/fuzz/schemathesis.toml, and our own from e2e/fuzz/hooks.py. No 5xx, no
// response outside its schema, no response that repeats the bearer token sent.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ThreatClient } from '@threatlib/core';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { APIServer } from '@threatlib/server';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../fuzz/schemathesis.sh', import.meta.url));
const EXAMPLE_LIST = fileURLToPath(
  new URL('../../packages/core/examples/lists/example-blocklist.txt', import.meta.url),
);
const TOKEN = 'fuzz-token-0123456789abcdef0123456789';
const e2e = Boolean(process.env.THREATLIB_E2E);

function schemathesis(baseUrl: string, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, baseUrl, TOKEN, '--seed', '1', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The last lines of a run, with the long reproduction bodies cut, for a failure message a person can read. */
const tail = (output: string) =>
  output
    .split('\n')
    .map((line) => line.slice(0, 300))
    .slice(-80)
    .join('\n');

describe.skipIf(!e2e)('schemathesis against the REST server', () => {
  let emulator: FeedEmulator;
  let server: APIServer;
  let address: string;

  beforeAll(async () => {
    emulator = await startFeedEmulator();
    const feed = (name: keyof FeedEmulator['endpoints']) => ({
      key: `key-${name}`,
      endpoint: emulator.endpoints[name],
      timeout: 2000,
    });
    // All five feeds (on the emulator), the built-in warninglists and a local list: responses carry every kind of
    // result the schema describes.
    const client = new ThreatClient(
      {
        sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
        apiKeys: {
          feed_urls: feed('feed_urls'),
          feed_otx: feed('feed_otx'),
          feed_abuse: feed('feed_abuse'),
          feed_cti: feed('feed_cti'),
          feed_scan: feed('feed_scan'),
        },
        lists: [{ name: 'example', file: EXAMPLE_LIST, format: 'plain', verdict: 'malicious' }],
        security: { enforceHttps: false },
        logging: { enabled: false },
      },
      { env: false },
    );
    // The rate limit and the failed-authentication block have their own tests; here they would only stop the fuzzer
    // after the first few hundred requests (or the first ten it sends without a valid token).
    server = new APIServer({
      port: 0,
      authentication: { type: 'bearer', tokens: [TOKEN] },
      rateLimit: { max: 1_000_000, windowMs: 60_000 },
      authFailureLimit: { max: 1_000_000 },
    });
    server.mount('/api/v1', client);
    address = await server.start();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await emulator?.close();
  });

  it('finds no failure in any operation', { timeout: 900_000 }, async () => {
    // Every operation the server documents is fuzzed: as many as its OpenAPI document lists.
    const document = (await (await fetch(`${address}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
    // Schemathesis leaves out the operation that serves the schema it was given (GET /openapi.json); the same
    // document under the mount prefix is fuzzed like any other operation.
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((k) => methods.has(k) && !(path === '/openapi.json' && k === 'get')),
    );
    expect(operations.length).toBeGreaterThanOrEqual(11);
    const { code, output } = await schemathesis(address);
    expect(code, tail(output)).toBe(0);
    expect(output).toMatch(new RegExp(`Tested: ${operations.length}\\b`));
    expect(output).toMatch(/\d+ generated, \d+ passed/);
  });

  it('fails a server that answers 500 (the harness can fail)', { timeout: 300_000 }, async () => {
    const broken = Fastify();
    broken.get('/openapi.json', async () => ({
      openapi: '3.1.0',
      info: { title: 'broken', version: '1' },
      paths: {
        '/things': {
          get: {
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      },
    }));
    broken.get('/things', async (_request, reply) => reply.code(500).send({ error: 'boom' }));
    const brokenAddress = await broken.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { code, output } = await schemathesis(brokenAddress, ['--max-examples', '5']);
      expect(code).not.toBe(0);
      expect(output).toMatch(/Server error/);
    } finally {
      await broken.close();
    }
  });

  it('fails a server that repeats the bearer token (the token check can fail)', { timeout: 300_000 }, async () => {
    // Everything else about this server is right: a 200 with a body its schema allows, so only the token check fails.
    const leaking = Fastify();
    const echoed = { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] };
    leaking.get('/openapi.json', async () => ({
      openapi: '3.1.0',
      info: { title: 'leaking', version: '1' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      paths: {
        '/things': {
          get: {
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: echoed } } },
              '401': { description: 'no token', content: { 'application/json': { schema: echoed } } },
            },
          },
        },
      },
    }));
    // The fault of finding 7: the credential, lower-cased, inside a message.
    leaking.get('/things', async (request, reply) => {
      const header = request.headers.authorization;
      if (!header) return reply.code(401).send({ detail: 'no credentials' });
      return { detail: `seen ${header.toLowerCase()}` };
    });
    const leakingAddress = await leaking.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { code, output } = await schemathesis(leakingAddress, ['--max-examples', '5']);
      expect(code, tail(output)).not.toBe(0);
      expect(output).toMatch(/no_credential_echo/);
      expect(output).toMatch(/The response body contains the bearer token the request sent/);
      expect(output).not.toMatch(/Server error/);
    } finally {
      await leaking.close();
    }
  });
});
