import { z } from 'zod';

/**
 * What a user or the client hands over to be alerted on. The same schema validates `POST /alerts` and what
 * integrations receive in `sendAlert`.
 */
export const AlertInputSchema = z.strictObject({
  title: z.string().trim().min(1, { error: 'required: a short title' }).max(500),
  /** 1 (lowest) to 10; the correlation's risk score when the client raises the alert. */
  severity: z.int().min(1).max(10),
  description: z.string().max(20_000).optional(),
  /** Normalised indicators the alert is about. */
  indicators: z.array(z.string().min(1).max(8192)).max(10_000).default([]),
  /** When the alert happened (ISO 8601); defaults to when it was stored. */
  timestamp: z.iso.datetime({ offset: true }).optional(),
  /** Who raised it (`threatlib`, an integration, a user). */
  source: z.string().max(200).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** An alert as given to `AlertStore.add`. */
export type AlertInput = z.input<typeof AlertInputSchema>;

/** A stored alert: the input with an id and a timestamp. */
export interface Alert {
  id: string;
  title: string;
  severity: number;
  description?: string;
  indicators: string[];
  /** ISO 8601. */
  timestamp: string;
  source?: string;
  metadata?: Record<string, unknown>;
}
