import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import type { RetryOptions } from '../options/processor-options.js';

/**
 * How long to wait before attempt `next` (2 for the first retry): `retryDelay × backoffMultiplier^(next − 2)`,
 * at most `maxRetryDelay`. No jitter: the delay is also the name of the RabbitMQ retry queue that holds the message.
 */
export function retryDelayBefore(next: number, options: RetryOptions): number {
  const exponent = Math.max(0, next - 2);
  const delay = options.retryDelay * options.backoffMultiplier ** exponent;
  return Math.min(options.maxRetryDelay, Math.round(delay));
}

/**
 * What to do with a message whose handler failed on attempt `attempt`: try again after a delay, or dead-letter it
 * (no attempts left, or an error no retry can fix: {@link UnprocessableMessageError} or `isRetryable: false`).
 */
export function afterFailure(
  error: unknown,
  attempt: number,
  options: RetryOptions,
): { action: 'retry'; delay: number; next: number } | { action: 'dead-letter'; reason: 'unprocessable' | 'exhausted' } {
  if (UnprocessableMessageError.isInstance(error) || (error as { isRetryable?: unknown })?.isRetryable === false) {
    return { action: 'dead-letter', reason: 'unprocessable' };
  }
  if (attempt >= options.maxAttempts) return { action: 'dead-letter', reason: 'exhausted' };
  return { action: 'retry', delay: retryDelayBefore(attempt + 1, options), next: attempt + 1 };
}
