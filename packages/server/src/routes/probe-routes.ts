import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import { type AuthenticationGuard, authenticationHook } from '../auth/authentication-hook.js';
import { type ClientHealth, isReady } from '../health/client-health.js';
import type { ProbeCache } from '../health/probe-cache.js';
import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';

/** What the probe routes need of the server. */
export interface ProbeRoutesDeps {
  /** Every mounted client. */
  clients: readonly ThreatClient[];
  /** The mounted clients' health, probed at most once per cache time. */
  healthProbe: ProbeCache<ClientHealth[]>;
  /** When the server was made, in ms since the epoch. */
  startedAt: number;
  metrics: ServerMetrics;
  /** The API's authentication when `protectProbes` is on; undefined leaves the probes open. */
  guard: AuthenticationGuard | undefined;
}

/** `GET /health` (liveness, readiness and each client's checks) and Prometheus `GET /metrics`. */
export function registerProbeRoutes(
  app: FastifyInstance,
  { clients, healthProbe, startedAt, metrics, guard }: ProbeRoutesDeps,
): void {
  // Probes are not rate-limited (a scraper polls); with protectProbes they take the API's credentials, and a
  // wrong one counts toward the address's failed-authentication block as it does on the API.
  const probes = {
    config: { rateLimit: false as const },
    ...(guard ? { onRequest: authenticationHook(guard) } : {}),
  };
  app.get('/health', probes, async (_request, reply) => {
    const probed = await healthProbe.get();
    const ready = probed.every(isReady);
    const degraded = probed.some((c) => c.checked && c.health !== 'healthy');
    const health = {
      status: ready && !degraded ? ('ok' as const) : ('degraded' as const),
      live: true,
      ready,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      clients: probed,
    };
    return reply.code(health.ready ? 200 : 503).send(health);
  });
  app.get('/metrics', probes, async (_request, reply) => {
    // Served while any mounted client has metrics on; each client's own series only when it has.
    if (!clients.some((client) => client.config.enterprise.monitoring.metrics)) {
      throw new ProblemError({
        type: PROBLEM_TYPES.notFound,
        title: 'Metrics disabled',
        status: 404,
        detail: 'metrics are disabled: enterprise.monitoring.metrics is false on every mounted client',
      });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
