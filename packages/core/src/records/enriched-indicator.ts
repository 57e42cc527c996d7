import * as z from 'zod';

const isoTime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' });

/**
 * What an integration knows about an indicator (the result of `enrichIndicator`): `{indicator, firstSeen, lastSeen,
 * associatedEvents, riskScore}`, dates in ISO 8601.
 *
 * @example
 * ```ts
 * return parseRecord(EnrichedIndicatorSchema, {
 *   indicator: '198.51.100.7',
 *   firstSeen: '2026-01-02T03:04:05Z',
 *   lastSeen: '2026-02-01T00:00:00Z',
 *   associatedEvents: 12,
 *   riskScore: 7.5,
 * }, 'enriched indicator');
 * ```
 */
export const EnrichedIndicatorSchema = z
  .strictObject({
    indicator: z.string().min(1, { error: 'must not be empty' }).max(8192),
    firstSeen: isoTime,
    lastSeen: isoTime,
    associatedEvents: z.int({ error: 'expected a whole number' }).nonnegative(),
    /** On the scale of the system that answered; never negative. */
    riskScore: z.number().nonnegative(),
  })
  .refine((record) => Date.parse(record.firstSeen) <= Date.parse(record.lastSeen), {
    path: ['lastSeen'],
    error: 'is before firstSeen',
  });

/** The result of `enrichIndicator`. */
export type EnrichedIndicator = z.output<typeof EnrichedIndicatorSchema>;
