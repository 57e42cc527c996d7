import { ValidationError } from '@threatlib/core';
import { z } from 'zod';

const threatRecordSchema = z.strictObject({
  /** The normalised indicator. */
  indicator: z.string().min(1, { error: 'must not be empty' }),
  /** The correlation's risk score, 0..10. */
  threatLevel: z.number().min(0).max(10),
  /** Ids of the sources that called it malicious or suspicious. */
  sources: z.array(z.string()),
  /** When it was found, epoch ms. */
  timestamp: z.int().nonnegative({ error: 'expected epoch milliseconds' }),
});

/** The value of a record on the threats topic. */
export type ThreatRecord = z.infer<typeof threatRecordSchema>;

/** A record for `produce`: the key decides the partition (the indicator, so one indicator's records stay in order). */
export interface ThreatRecordInput {
  key?: string;
  value: ThreatRecord;
}

/**
 * Checks a threat record's value.
 *
 * @throws {ValidationError} `Invalid threat record: threatLevel: ...` naming every problem.
 */
export function validateThreatRecord(value: unknown): ThreatRecord {
  const result = threatRecordSchema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    'threat record',
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(root)',
      message: issue.message,
    })),
  );
}
