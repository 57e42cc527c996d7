import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PROBLEM_TYPES, ProblemError } from './problem.js';

/** The server's rate limiter as `@fastify/rate-limit`'s `createRateLimit()` makes it: the same counters as every route. */
export type RequestLimiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * Charges a batch of `items` lookups to the sender's rate-limit budget: a batch counts as one request per item,
 * the one already counted when the request arrived plus `items - 1` more. A batch that would pass the budget is
 * refused whole with a 429 before any lookup, and costs nothing more than the one request: a smaller batch later
 * can still fit.
 *
 * @throws {ProblemError} 429 (with `Retry-After`) when fewer than `items - 1` requests are left in the window; 413
 *   when the batch is larger than the whole window's budget, which no retry can fit.
 */
export async function chargeBatchItems(limiter: RequestLimiter, request: FastifyRequest, items: number): Promise<void> {
  const extra = items - 1;
  if (extra <= 0) return;
  const state = await limiter(request, { increment: false });
  if (state.isAllowed) return;
  if (state.remaining < extra) throw refusal(items, state.remaining, state.max, state.ttlInSeconds);
  let last = state;
  for (let i = 0; i < extra; i++) {
    const next = await limiter(request);
    if (next.isAllowed) return;
    last = next;
  }
  // Another request from the same address took part of the budget meanwhile: the batch is over it after all.
  if (last.isExceeded) throw refusal(items, 0, last.max, last.ttlInSeconds);
}

function refusal(items: number, remaining: number, max: number, retryAfterSeconds: number): ProblemError {
  if (items > max) {
    // No window will ever hold it: a 429 with Retry-After would have the client retry for ever.
    return new ProblemError({
      type: PROBLEM_TYPES.batchTooLarge,
      title: 'Batch too large',
      status: 413,
      detail: `a batch of ${items} indicators counts as ${items} requests, more than the ${max} one address may make per window; send at most ${max} at a time`,
    });
  }
  const left = remaining + 1;
  return new ProblemError(
    {
      type: PROBLEM_TYPES.rateLimited,
      title: 'Too many requests',
      status: 429,
      detail: `a batch of ${items} indicators counts as ${items} requests, and ${left} ${left === 1 ? 'is' : 'are'} left in this window for your address; retry in ${retryAfterSeconds} s or send a smaller batch`,
    },
    { 'retry-after': String(Math.max(1, retryAfterSeconds)) },
  );
}
