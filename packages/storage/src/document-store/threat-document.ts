import { parseRecord } from '@threatlib/core';
import { ObjectId } from 'mongodb';
import { z } from 'zod';
import { ttlSchema } from '../contract/record-ttl.js';
import { resultsSchema } from '../contract/threat-results.js';
import type { StoredThreat } from '../contract/threat-storage.js';
import { asDate } from '../filter/date-fields.js';
import { storableRecord } from './stored-record.js';

const dateInput = z.custom<Date | string>((value) => asDate(value) !== undefined, {
  error: 'expected a Date or an ISO 8601 date-time',
});

/** The documented stored threat record, with the optional `id` that makes a retried write idempotent. */
const ThreatInputSchema = z.looseObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, { error: 'expected 1 to 128 letters, digits, ".", "_", ":" or "-"' })
    .optional(),
  indicator: z.string().min(1, { error: 'must not be empty' }).max(8192),
  results: resultsSchema,
  scanDate: dateInput,
  ttl: ttlSchema,
  expiresAt: z.undefined({ error: 'is set by the store, from scanDate and ttl' }).optional(),
});

/** A threat record as stored: `_id` (the record's id), dates as dates, `expiresAt` = `scanDate` + `ttl`. */
export interface ThreatDocument extends Record<string, unknown> {
  _id: string;
  indicator: string;
  results: Record<string, unknown>;
  scanDate: Date;
  ttl: number;
  expiresAt: Date;
}

/**
 * Validates a stored threat record (`{indicator, results, scanDate, ttl}`, optional `id`, other fields kept) and
 * makes the document to store.
 *
 * @throws {ValidationError} `Invalid threat record: <field>: <reason>`, naming every field that is wrong.
 */
export function threatDocument(input: unknown, subject = 'threat record'): ThreatDocument {
  const parsed = parseRecord(ThreatInputSchema, input, subject);
  const { id, ...rest } = storableRecord(parsed, subject);
  const scanDate = rest.scanDate as Date;
  return {
    ...rest,
    _id: (id as string | undefined) ?? new ObjectId().toHexString(),
    indicator: parsed.indicator,
    results: rest.results as Record<string, unknown>,
    scanDate,
    ttl: parsed.ttl,
    expiresAt: new Date(scanDate.getTime() + parsed.ttl * 1000),
  };
}

/** A stored document as a record: `_id` becomes `id` (a string). */
export function fromDocument(document: Record<string, unknown>): Record<string, unknown> & { id: string } {
  const { _id, ...rest } = document;
  return { id: _id instanceof ObjectId ? _id.toHexString() : String(_id), ...rest };
}

/** A stored threat document as the record `query` and `threatsOf` give back. */
export function fromThreatDocument(document: Record<string, unknown>): StoredThreat {
  return fromDocument(document) as unknown as StoredThreat;
}
