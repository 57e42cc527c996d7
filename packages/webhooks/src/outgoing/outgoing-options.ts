import { z } from 'zod';
import { blockProblem } from '../network/address-policy.js';
import type { WebhookOutbox } from './outbox/outbox.js';

/**
 * Waits between attempts, in ms: the Standard Webhooks schedule ("immediately, 5 seconds, 5 minutes, 30 minutes,
 * 2 hours, 5 hours, 10 hours, 10 hours"): eight attempts over about 27.5 hours.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
/** Longest wait before an attempt, in ms, whatever the schedule, the jitter or a `Retry-After` ask for (10 hours). */
export const DEFAULT_MAX_DELAY_MS = 36_000_000;
/** Where the outbox is kept when `outbox.directory` is not given, relative to the working directory. */
export const DEFAULT_OUTBOX_DIRECTORY = '.threatlib/webhook-outbox';

const DAY_MS = 86_400_000;

/** Whether `value` implements {@link WebhookOutbox} (`open`, `put`, `remove` and `close`). */
export function isOutbox(value: unknown): value is WebhookOutbox {
  const candidate = value as Partial<Record<keyof WebhookOutbox, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    ['open', 'put', 'remove', 'close'].every((method) => typeof candidate[method as keyof WebhookOutbox] === 'function')
  );
}

/**
 * Where deliveries wait until they succeed or finally fail: `{directory}` for the file outbox (default
 * `.threatlib/webhook-outbox` under the working directory), or a {@link WebhookOutbox} of your own (a storage
 * integration's).
 */
const outboxSchema = z.union(
  [
    z.strictObject({
      /** Directory of the outbox's journal; created (mode 0700) on first use. One manager per directory. */
      directory: z.string().min(1).default(DEFAULT_OUTBOX_DIRECTORY),
    }),
    z.custom<WebhookOutbox>(isOutbox),
  ],
  { error: 'expected {directory} or an outbox with open, put, remove and close' },
);

/**
 * Options of the outgoing side (`WebhookManager`'s `delivery`, `integrations.webhooks.delivery`): how deliveries
 * are retried, where they wait, which networks they may reach.
 */
export const OutgoingOptionsSchema = z
  .strictObject({
    /**
     * Waits before the second, third... attempt, in ms (default {@link DEFAULT_RETRY_SCHEDULE}); the first attempt
     * is immediate, so a delivery gets `retrySchedule.length + 1` attempts. `[]` tries once.
     */
    retrySchedule: z
      .array(
        z
          .int()
          .min(0)
          .max(7 * DAY_MS),
        { error: 'expected an array of waits in ms' },
      )
      .max(50, { error: 'at most 50 retries' })
      .default([...DEFAULT_RETRY_SCHEDULE]),
    /** Each wait is varied by up to this fraction either way, so retries of many deliveries spread out (default 0.2). */
    jitter: z.number().min(0).max(1).default(0.2),
    /** Longest wait, in ms: caps the schedule, the jitter and a receiver's `Retry-After` (default 10 hours). */
    maxDelayMs: z
      .int()
      .min(0)
      .max(7 * DAY_MS)
      .default(DEFAULT_MAX_DELAY_MS),
    /** How long one attempt may take to be answered, in ms (default 15000). */
    timeoutMs: z.int().min(100).max(300_000).default(15_000),
    /** Attempts in flight at once per endpoint (default 10). */
    concurrency: z.int().min(1).max(256).default(10),
    /** Deliveries waiting at most, over all endpoints (default 100000); beyond it `trigger` rejects. */
    maxPending: z.int().min(1).max(10_000_000).default(100_000),
    /** Finished deliveries `deliveries()` remembers (default 1000). */
    history: z.int().min(0).max(1_000_000).default(1_000),
    /**
     * Internal networks deliveries may reach: false (default) for none; true for loopback, private, link-local,
     * CGNAT and unique-local addresses (never metadata services, multicast, broadcast); or a list of addresses and
     * CIDR blocks (`['10.20.0.0/16']`).
     */
    allowPrivateNetworks: z
      .union([
        z.boolean(),
        z
          .array(
            z.string().superRefine((entry, context) => {
              const problem = blockProblem(entry);
              if (problem) context.addIssue({ code: 'custom', message: problem });
            }),
          )
          .max(1_000),
      ])
      .default(false),
    outbox: outboxSchema.prefault({}),
    /** Verify receivers' TLS certificates (default true). */
    validateCertificates: z.boolean().default(true),
  })
  .superRefine((options, context) => {
    const tooLong = options.retrySchedule.findIndex((wait) => wait > options.maxDelayMs);
    if (tooLong !== -1) {
      context.addIssue({
        code: 'custom',
        path: ['retrySchedule', tooLong],
        message: `${options.retrySchedule[tooLong]} ms is longer than maxDelayMs (${options.maxDelayMs} ms)`,
      });
    }
  });

/** What users write for {@link OutgoingOptionsSchema}. */
export type OutgoingOptions = z.input<typeof OutgoingOptionsSchema>;
/** {@link OutgoingOptions} with every default filled in. */
export type ResolvedOutgoingOptions = z.output<typeof OutgoingOptionsSchema>;
