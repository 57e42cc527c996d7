import * as z from 'zod';
import type { FeedResult } from '../feeds/feed-result.js';
import { INDICATOR_TYPE_NAMES } from '../indicators/indicator-type-name.js';
import { shownInput } from './shown-input.js';

/**
 * The content of an incoming queue message: `{indicator, type?}`, `type` any accepted type name (`ip`, `domain`,
 * `ipv4`…); without it the type is detected. Other fields are ignored, so producers may add their own (a
 * correlation id). Whether the indicator is valid is the scan's to say.
 */
export const IndicatorMessageSchema = z
  .looseObject({
    indicator: z
      .string({ error: (issue) => (issue.input === undefined ? 'required' : 'expected a string') })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(8192),
    type: z
      .enum(INDICATOR_TYPE_NAMES, {
        error: (issue) => `expected one of ${INDICATOR_TYPE_NAMES.join(', ')}, got ${shownInput(issue.input)}`,
      })
      .optional(),
  })
  .transform(({ indicator, type }) => (type === undefined ? { indicator } : { indicator, type }));

/** An incoming queue message's content, parsed. */
export type IndicatorMessage = z.output<typeof IndicatorMessageSchema>;

/**
 * What the queue pipeline writes for every indicator it handled: `{indicator, results, processedAt}`, `results`
 * every source's answer (see `FeedResult`) and `processedAt` in ISO 8601.
 */
export const ProcessedMessageSchema = z.strictObject({
  indicator: z.string().min(1),
  results: z.array(z.looseObject({ feed: z.string(), status: z.string(), verdict: z.string() })),
  processedAt: z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' }),
});

/** What the queue pipeline writes for every indicator it handled. */
export interface ProcessedMessage {
  /** The normalised indicator. */
  indicator: string;
  /** Every source's answer. */
  results: FeedResult[];
  /** ISO 8601. */
  processedAt: string;
}
