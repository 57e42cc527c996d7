import { parseRecord } from '@threatlib/core';
import { confidenceSchema } from '@threatlib/core/integration';
import { z } from 'zod';
import type { IndicatorSighting } from './threat-storage.js';

const SightingSchema = z.strictObject({
  indicator: z.string().min(1, { error: 'must not be empty' }).max(8192),
  type: z.string().min(1).max(32),
  seenAt: z.date().refine((date) => !Number.isNaN(date.getTime()), { error: 'an invalid Date' }),
  verdict: z.string().min(1).max(32),
  confidence: confidenceSchema(),
  riskScore: z.number().min(0).max(10),
});

const SightingsSchema = z.array(SightingSchema).max(100_000);

/**
 * Validates sightings before a back end folds them into histories.
 *
 * @throws {ValidationError} `Invalid indicator sightings: [i].<field>: <reason>`, naming every field that is wrong.
 */
export function parseSightings(sightings: readonly IndicatorSighting[]): IndicatorSighting[] {
  return parseRecord(SightingsSchema, sightings, 'indicator sightings');
}
