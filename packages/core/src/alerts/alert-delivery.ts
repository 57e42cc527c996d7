import * as z from 'zod';

/** Where an alert's delivery to one integration stands. */
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One of {@link DELIVERY_STATUSES}. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The outcome of delivering an alert to one integration, kept on the stored alert: `pending` while attempts are
 * under way, `delivered` with the integration's answer in `result`, or `failed` with `lastError` once the attempts
 * ran out (it can be delivered again later).
 */
export const AlertDeliverySchema = z.strictObject({
  /** The name the integration was registered under. */
  integration: z.string().min(1).max(200),
  status: z.enum(DELIVERY_STATUSES),
  /** Attempts made so far. */
  attempts: z.int().nonnegative(),
  /** The last attempt's error message (secrets redacted), when an attempt failed. */
  lastError: z.string().max(2000).optional(),
  /** When the last attempt ended, ISO 8601. */
  lastAttemptAt: z.iso.datetime({ offset: true }).optional(),
  /** What the integration's `sendAlert` resolved with, when it was delivered. */
  result: z.unknown().optional(),
});

/** One integration's delivery of an alert. */
export type AlertDelivery = z.output<typeof AlertDeliverySchema>;
