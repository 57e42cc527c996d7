import type { RetryOptions } from '../scheduler/retry-policy.js';

/** How one integration's deliveries are tried: attempts, the time each may take, and the backoff between them. */
export interface DeliveryPolicy extends RetryOptions {
  /** Retries after the first attempt (`retryAttempts`): a delivery is tried at most `retryAttempts + 1` times. */
  retryAttempts: number;
  /** How long one `sendAlert` call may take, in ms, before the attempt counts as failed. */
  timeout: number;
}

/** The most retries and the longest attempt a policy allows, whatever an integration says. */
const MAX_RETRIES = 10;
const MAX_TIMEOUT_MS = 600_000;

/**
 * The delivery policy of one integration. Its own `retries` and `timeout` (ms) are used where it has them, read from
 * the first of: the options it was made with (`integrations.siem.retries`), the integration itself
 * (`integration.retries`), its `options` property (packages keep their parsed options there). Otherwise the
 * client's `performance.retryAttempts` and `performance.requestTimeout`. The backoff between attempts is always the
 * client's: `performance.retryDelay × performance.backoffMultiplier^(n−1)`, with jitter.
 *
 * A value that is not a whole number in range (retries 0..10, timeout 1..600000 ms) is ignored for the next source.
 */
export function deliveryPolicy(
  integration: unknown,
  options: unknown,
  defaults: { retryAttempts: number; requestTimeout: number; retryDelay: number; backoffMultiplier: number },
): DeliveryPolicy {
  const sources = [options, integration, (integration as { options?: unknown } | null)?.options];
  return {
    retryAttempts: firstWhole(sources, 'retries', 0, MAX_RETRIES) ?? defaults.retryAttempts,
    timeout: firstWhole(sources, 'timeout', 1, MAX_TIMEOUT_MS) ?? defaults.requestTimeout,
    retryDelay: defaults.retryDelay,
    backoffMultiplier: defaults.backoffMultiplier,
  };
}

function firstWhole(sources: unknown[], name: string, min: number, max: number): number | undefined {
  for (const source of sources) {
    if (typeof source !== 'object' || source === null) continue;
    let value: unknown;
    try {
      value = (source as Record<string, unknown>)[name];
    } catch {
      // A getter that throws says nothing about the policy.
      continue;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  }
  return undefined;
}
