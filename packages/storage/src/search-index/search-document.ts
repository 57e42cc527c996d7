import { parseRecord } from '@threatlib/core';
import { z } from 'zod';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from './daily-index.js';

/** Longest keyword Elasticsearch indexes, in UTF-8 bytes (Lucene's term limit). */
const MAX_KEYWORD_BYTES = 32_766;

// An ISO 8601 date-time with its offset, what `toISOString` writes; a date alone or a local time is ambiguous.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** `value` as epoch ms when it is a valid `Date` or an ISO 8601 date-time with an offset; undefined otherwise. */
export function timestampOf(value: unknown): number | undefined {
  let time: number;
  if (value instanceof Date) time = value.getTime();
  else if (typeof value === 'string' && ISO_DATE_TIME.test(value)) time = Date.parse(value);
  else return undefined;
  return Number.isNaN(time) ? undefined : time;
}

const keyword = (max: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(max)
    .refine((text) => text.length * 3 <= MAX_KEYWORD_BYTES || Buffer.byteLength(text) <= MAX_KEYWORD_BYTES, {
      error: `longer than Elasticsearch indexes (${MAX_KEYWORD_BYTES} bytes)`,
    });

/** An instant given as a `Date` or an ISO 8601 date-time, as epoch ms, between 1970 and 9999. */
export const timestampSchema = z
  .custom<Date | string>((value) => timestampOf(value) !== undefined, {
    error: 'expected an ISO 8601 date-time with an offset ("2026-03-01T12:00:00Z") or a valid Date',
  })
  .transform((value) => timestampOf(value) as number)
  .refine((time) => time >= EARLIEST_TIMESTAMP && time <= LATEST_TIMESTAMP, {
    error: 'expected a time between 1970 and 9999',
  });

/**
 * The documented search-index document (`{indicator, threat_type, confidence, sources, '@timestamp'}`) and the
 * campaign it belongs to. `indicator` and `@timestamp` are required (the time picks the daily index); a field the
 * mapping does not have is refused here, before anything is sent.
 */
const SearchDocumentSchema = z.strictObject({
  indicator: keyword(8_192),
  threat_type: keyword(256).optional(),
  /** 0..100 as correlations give it; 0..1 fits too. */
  confidence: z.number().min(0).max(100).optional(),
  sources: z.array(keyword(256)).max(100).optional(),
  '@timestamp': timestampSchema,
  campaign: keyword(1_024).optional(),
});

/** A search-index document as `index(indexKey, document)` takes it. */
export interface SearchDocument {
  indicator: string;
  threat_type?: string;
  confidence?: number;
  sources?: string[];
  /** An ISO 8601 date-time (`new Date().toISOString()`) or a `Date`. */
  '@timestamp': string | Date;
  /** The campaign the document belongs to. */
  campaign?: string;
}

/** A search-index document as stored and given back by `search`: `@timestamp` as an ISO 8601 string in UTC. */
export interface StoredSearchDocument extends Omit<SearchDocument, '@timestamp'> {
  '@timestamp': string;
}

/** A validated document ready to send: its source and its time. */
export interface PreparedDocument {
  source: StoredSearchDocument;
  time: number;
}

/**
 * Validates a search-index document and makes its source: `@timestamp` written as `toISOString()` gives it.
 *
 * @throws {ValidationError} `Invalid <subject>: <field>: <reason>`, naming every field that is wrong.
 */
export function prepareSearchDocument(document: unknown, subject = 'search-index document'): PreparedDocument {
  const parsed = parseRecord(SearchDocumentSchema, document, subject);
  const time = parsed['@timestamp'];
  return { source: { ...parsed, '@timestamp': new Date(time).toISOString() }, time };
}
