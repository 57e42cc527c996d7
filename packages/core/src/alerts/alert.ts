import * as z from 'zod';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { isIndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { flaggedBy } from '../records/flagged-by.js';
import { type IndicatorRecord, IndicatorRecordSchema, IndicatorSchema } from '../records/indicator-record.js';
import { prototypeKeyPath } from '../records/prototype-keys.js';
import { riskScoreForConfidence, SEVERITIES, SeveritySchema, severityForRiskScore } from '../records/severity.js';
import { confidenceSchema } from '../units/confidence-scale.js';
import { AlertDeliverySchema } from './alert-delivery.js';
import { metadataProblem } from './alert-metadata.js';

const title = z.string().trim().min(1, { error: 'required: a short title' }).max(500);
const description = z.string().max(20_000);
const timestamp = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' });
const riskScore = z.number().min(1).max(10).meta({ description: 'The correlation’s risk score, 1 to 10' });
const PROTO_KEY: ReadonlySet<string> = new Set(['__proto__']);

/**
 * Free-form, at most `ALERT_METADATA_MAX_BYTES` as JSON, with no `__proto__` key at any depth (as the REST server
 * and the webhook receiver refuse): a record schema drops one without a word, and a handler merging the metadata
 * into an object would have it replace that object's prototype. `constructor` and `prototype` are kept as keys.
 */
const metadataRecord = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = metadataProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
// Checked before the record schema copies it (the copy is where a "__proto__" key disappears); typed as the record
// it is, so that `AlertInput['metadata']` stays `Record<string, unknown>`.
const metadata = z.preprocess((value, ctx) => {
  const at = prototypeKeyPath(value, PROTO_KEY);
  if (at !== undefined) {
    ctx.addIssue({ code: 'custom', message: `the key "__proto__" is refused (at ${at}); rename it`, input: undefined });
  }
  return value;
}, metadataRecord) as unknown as typeof metadataRecord;

/**
 * The result of `correlate` as an alert of the webhook-handler form carries it. Only `confidence` is required; the
 * rest of the correlation is read when present and not kept.
 */
// Plain objects (unknown keys stripped, not kept): a loose object's index signature would refuse the client's own
// `CorrelationResult`, an interface, at compile time.
const AlertCorrelationSchema = z.object({
  indicator: z.string().optional(),
  type: z.string().optional(),
  /** 0 to 100, as `correlate` gives it: a fraction between 0 and 1 is refused as a 0..1 score. */
  confidence: confidenceSchema(),
  riskScore: riskScore.optional(),
  sources: z.array(z.string().min(1).max(200)).max(100).optional(),
  contributions: z.array(z.object({ feed: z.string(), verdict: z.string() })).optional(),
});

/**
 * The fields an alert is given with, before the forms are reconciled: for a schema of its own (the REST API's) to
 * extend. {@link AlertInputSchema} is what validates and normalises an alert.
 */
export const AlertFieldsSchema = z.strictObject({
  /** Kept when given (a store refuses one it already holds); a new id otherwise. */
  id: z.string().min(1).max(200).optional(),
  title,
  /** Required unless a `correlation` or `riskScore` gives it. */
  severity: SeveritySchema.optional(),
  description: description.optional(),
  indicators: z.array(IndicatorSchema).max(10_000).optional(),
  /** Webhook-handler form: the indicator, with `correlation`. */
  indicator: z.string().min(1).max(8192).optional(),
  /** Webhook-handler form: the result of `correlate`. */
  correlation: AlertCorrelationSchema.optional(),
  /** When it happened; defaults to when it was stored. */
  timestamp: timestamp.optional(),
  /** Who raised it (`threatlib`, an integration, a user). */
  source: z.string().max(200).optional(),
  riskScore: riskScore.optional(),
  metadata: metadata.optional(),
  /** Deliveries to integrations so far (kept when an alert moves between stores). */
  deliveries: z.array(AlertDeliverySchema).max(1000).optional(),
});

/**
 * An alert as given to `sendAlert`, `POST /alerts` or `client.alerts.add`, in either documented form:
 *
 * - `{title, severity, description?, indicators: [{type, value, confidence?, source?}], timestamp?}`;
 * - the webhook-handler form `{title, indicator, correlation}`: the indicator becomes an indicator record with the
 *   correlation's confidence and flagging sources, and the severity (unless given) comes from the correlation's
 *   risk score (or, without one, from its confidence).
 *
 * `severity` is one of `informational`, `low`, `medium`, `high`, `critical`, in any case; without it, a `riskScore`
 * gives it (`severityForRiskScore`). `id`, `source`, `riskScore`, `metadata` and `deliveries` are optional.
 *
 * @example
 * ```ts
 * await client.alerts.add({
 *   title: 'Suspicious domain',
 *   severity: 'high',
 *   description: 'Seen in phishing mail',
 *   indicators: [{ type: 'domain', value: 'evil.example', confidence: 85 }],
 *   timestamp: new Date().toISOString(),
 * });
 * await client.alerts.add({ title: 'High confidence threat', indicator, correlation: await client.correlate(indicator) });
 * ```
 */
export const AlertInputSchema = AlertFieldsSchema.transform((input, ctx) => {
  const { indicator, correlation, severity: given, indicators: listed, riskScore: givenRisk, ...rest } = input;
  const risk =
    givenRisk ?? correlation?.riskScore ?? (correlation ? riskScoreForConfidence(correlation.confidence) : undefined);
  const severity = given ?? (risk === undefined ? undefined : severityForRiskScore(risk));
  if (severity === undefined) {
    ctx.issues.push({
      code: 'custom',
      path: ['severity'],
      message: `required: one of ${SEVERITIES.join(', ')} (or a correlation or riskScore to derive it from)`,
      input: undefined,
    });
  }
  if (indicator !== undefined && listed !== undefined) {
    ctx.issues.push({
      code: 'custom',
      path: ['indicator'],
      message: 'give either indicators (a list) or indicator (with its correlation), not both',
      input: indicator,
    });
  }
  const indicators: IndicatorRecord[] = listed ?? [];
  const single = indicator ?? correlation?.indicator;
  if (single !== undefined && listed === undefined) {
    const record = correlatedIndicator(single, correlation);
    if (typeof record === 'string') {
      ctx.issues.push({
        code: 'custom',
        path: [indicator === undefined ? 'correlation' : 'indicator'],
        message: record,
        input: single,
      });
    } else {
      indicators.push(record);
    }
  }
  if (severity === undefined || ctx.issues.length > 0) return z.NEVER;
  return { ...rest, severity, indicators, ...(risk === undefined ? {} : { riskScore: risk }) };
});

/** An alert as given to `AlertStore.add` or `sendAlert`, in either documented form. */
export type AlertInput = z.input<typeof AlertInputSchema>;

/**
 * A stored alert: the documented record with its `id`, `timestamp` (ISO 8601) and `deliveries` (empty until the
 * client delivers it to integrations).
 */
export const AlertSchema = z.strictObject({
  id: z.string().min(1),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  description: description.optional(),
  indicators: z.array(IndicatorRecordSchema),
  timestamp: z.string(),
  source: z.string().optional(),
  riskScore: riskScore.optional(),
  metadata: metadata.optional(),
  deliveries: z.array(AlertDeliverySchema),
});

/** A stored alert. */
export type Alert = z.output<typeof AlertSchema>;

/** The indicator record of a webhook-handler alert, or why its indicator is not one. */
function correlatedIndicator(
  value: string,
  correlation: z.output<typeof AlertCorrelationSchema> | undefined,
): IndicatorRecord | string {
  const type = correlation?.type !== undefined && isIndicatorType(correlation.type) ? correlation.type : undefined;
  try {
    const parsed = parseIndicator(value, type);
    const sources =
      correlation?.sources ??
      (correlation?.contributions ? flaggedBy({ contributions: correlation.contributions }) : undefined);
    return {
      type: parsed.type,
      value: parsed.value,
      ...(correlation ? { confidence: correlation.confidence } : {}),
      ...(sources && sources.length > 0 ? { sources } : {}),
    };
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return error.reason;
    throw error;
  }
}
