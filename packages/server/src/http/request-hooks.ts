// The hooks every request goes through, whatever its route: the hardening headers, the host check, the timing the
// metrics observe, and the batching of responses written in one loop turn.

import type { FastifyInstance } from 'fastify';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import { hostRequired } from './host-required.js';

/** Adds the server's per-request hooks to `app`, before any plugin or route (the hardening headers come first). */
export function addRequestHooks(
  app: FastifyInstance,
  { hardening, metrics }: { hardening: Readonly<Record<string, string>>; metrics: ServerMetrics },
): void {
  // The hardening headers, set first and in one call, before any hook can answer.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(hardening);
    done();
  });

  // Responses are written in the event loop's check phase, together, instead of one by one as each handler
  // finishes: under load the requests read in one poll phase are answered in one burst, which costs the kernel
  // (and the peers it wakes) far less per response. An idle server answers in the same loop turn as before.
  // Measured by `pnpm bench:server` (see bench/README.md).
  app.addHook('onSend', (_request, _reply, payload, done) => {
    setImmediate(done, null, payload);
  });
  // Hooks on every request are callback-style: an async hook costs a promise and a microtask per request.
  app.addHook('onRequest', (request, _reply, done) => {
    (request as { startedAt?: bigint }).startedAt = process.hrtime.bigint();
    done(hostRequired(request));
  });
  app.addHook('onResponse', (request, reply, done) => {
    const started = (request as { startedAt?: bigint }).startedAt ?? process.hrtime.bigint();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, seconds);
    done();
  });
}
