import type { CorrelationResult, ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { chargeBatchItems, type RequestLimiter } from '../http/batch-rate-cost.js';
import { abortedWhenClientGoes } from '../http/client-gone.js';
import { problemFor } from '../http/error-problems.js';
import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import * as S from '../schemas.js';
import { correlate } from './correlate-route.js';
import { parse } from './parse-input.js';

/** What the threat routes need of the server. */
export interface ThreatRoutesDeps {
  client: ThreatClient;
  /** Most indicators in one batch. */
  batchLimit: number;
  /** The per-address request limiter a batch is charged against, one request per indicator. */
  batchLimiter: RequestLimiter | undefined;
}

/** `POST /threats/scan` and `POST /threats/batch`: verdicts of one indicator, or of many with one problem per failure. */
export function registerThreatRoutes(
  app: FastifyInstance,
  { client, batchLimit, batchLimiter }: ThreatRoutesDeps,
): void {
  // A client that goes away stops its lookups (their feed requests aborted, their timers cleared).
  app.post('/threats/scan', async (request, reply) => {
    const body = parse(S.ScanRequest, request.body, 'request body');
    return toScan(await correlate(client, body.indicator, body.type, abortedWhenClientGoes(reply.raw)), body.explain);
  });

  app.post('/threats/batch', async (request, reply) => {
    const raw = request.body as { indicators?: unknown } | undefined;
    if (Array.isArray(raw?.indicators) && raw.indicators.length > batchLimit) {
      throw new ProblemError({
        type: PROBLEM_TYPES.batchTooLarge,
        title: 'Batch too large',
        status: 413,
        detail: `a batch holds at most ${batchLimit} indicators; this one has ${raw.indicators.length}`,
      });
    }
    const body = parse(S.BatchRequest, request.body, 'request body');
    if (batchLimiter) await chargeBatchItems(batchLimiter, request, body.indicators.length);
    const signal = abortedWhenClientGoes(reply.raw);
    const results = await Promise.all(
      body.indicators.map(async (item) => {
        const { indicator, type } = typeof item === 'string' ? { indicator: item, type: undefined } : item;
        try {
          return {
            input: indicator,
            ok: true as const,
            result: toScan(await correlate(client, indicator, type, signal), body.explain),
          };
        } catch (error) {
          const problem = problemFor(error);
          if (!problem) throw error;
          return { input: indicator, ok: false as const, problem };
        }
      }),
    );
    const failed = results.filter((r) => !r.ok).length;
    return { results, summary: { total: results.length, succeeded: results.length - failed, failed } };
  });
}

/** A correlation as a scan's answer; with `explain`, its `explanation` too (what `POST /correlate` adds). */
function toScan(c: CorrelationResult, explain = false): z.infer<typeof S.ScanResponse> {
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
    ...(explain
      ? {
          explanation: {
            strategy: c.strategy,
            sourcesQueried: c.sourcesQueried,
            sourcesAnswered: c.sourcesAnswered,
            thresholds: c.thresholds,
            contributions: c.contributions,
            failures: c.failures,
          },
        }
      : {}),
  };
}
