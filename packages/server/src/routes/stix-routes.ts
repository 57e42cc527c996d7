import { toStixBundle } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import * as S from '../schemas.js';
import { parse } from './parse-input.js';

/**
 * `POST /stix/bundle`: scan results (as `/threats/batch` or `/correlate` answer them) written as a STIX 2.1 bundle
 * by core's `toStixBundle`, so a page exports the same indicators, patterns and references the library writes.
 * Nothing is looked up: the bundle says what the results given say.
 */
export function registerStixRoutes(app: FastifyInstance, batchLimit: number): void {
  app.post('/stix/bundle', async (request) => {
    const raw = request.body as { correlations?: unknown } | undefined;
    if (Array.isArray(raw?.correlations) && raw.correlations.length > batchLimit) {
      throw new ProblemError({
        type: PROBLEM_TYPES.batchTooLarge,
        title: 'Batch too large',
        status: 413,
        detail: `a bundle is written from at most ${batchLimit} results; this request has ${raw.correlations.length}`,
      });
    }
    const body = parse(S.StixBundleRequest, request.body, 'request body');
    return toStixBundle(body.correlations);
  });
}
