import * as z from 'zod';
import { IndicatorSchema } from './indicator-record.js';
import { caseInsensitiveEnum } from './severity.js';

/** A case's priority, lowest first. */
const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;

/** One of {@link PRIORITIES}. */
export type Priority = (typeof PRIORITIES)[number];

/**
 * A case to open in a SIEM (the input of `createCase`): `{title, description, priority, assignee, indicators}`.
 * `priority` is taken in any case; `assignee` is an e-mail address; each indicator is an {@link IndicatorSchema}
 * record, usually with its `source`.
 *
 * @example
 * ```ts
 * const input = parseRecord(CaseSchema, {
 *   title: 'Phishing campaign',
 *   description: 'Credential harvesting against finance',
 *   priority: 'critical',
 *   assignee: 'analyst@example.com',
 *   indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
 * }, 'case');
 * ```
 */
export const CaseSchema = z.strictObject({
  title: z.string().trim().min(1, { error: 'required: a short title' }).max(500),
  description: z.string().max(20_000).optional(),
  priority: caseInsensitiveEnum(PRIORITIES),
  assignee: z.email({ error: 'expected an e-mail address' }).max(320).optional(),
  indicators: z.array(IndicatorSchema).max(10_000).default([]),
});

/** A case as given to `createCase`. */
export type CaseInput = z.input<typeof CaseSchema>;

/** A case once parsed: priority in lower case, indicators with their precise types. */
export type Case = z.output<typeof CaseSchema>;
