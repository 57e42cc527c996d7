import * as z from 'zod';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { INDICATOR_TYPES, type IndicatorType } from '../indicators/indicator.js';
import { INDICATOR_TYPE_NAMES, type IndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { confidenceSchema } from '../units/confidence-scale.js';
import { shownInput } from './shown-input.js';

const typeName = z
  .enum(INDICATOR_TYPE_NAMES, {
    error: (issue) =>
      `expected one of ${INDICATOR_TYPE_NAMES.join(', ')}${issue.input === undefined ? '' : `, got ${shownInput(issue.input)}`}`,
  })
  .meta({ description: '`ip` is an IPv4 or IPv6 address, `hostname` a domain; records keep the precise type' });

const value = z.string().min(1, { error: 'must not be empty' }).max(8192).meta({ description: 'The indicator' });

/**
 * Checks `value` against `type` with `parseIndicator` and gives the record the precise type (`ip` → `ipv4`) and
 * the normalised value (refanged, lower-cased host); a value not of its type is an issue on `value`.
 */
function normalised<T extends { type: IndicatorTypeName; value: string }>(
  input: T,
  ctx: z.core.$RefinementCtx<T>,
): Omit<T, 'type'> & { type: IndicatorType } {
  try {
    const parsed = parseIndicator(input.value, input.type);
    return { ...input, type: parsed.type, value: parsed.value };
  } catch (error) {
    if (!InvalidIndicatorError.isInstance(error)) throw error;
    ctx.issues.push({ code: 'custom', path: ['value'], message: error.reason, input: input.value });
    return z.NEVER;
  }
}

const extras = {
  /** 0 to 100 (as stored: a record read back is not refused for what its input would be). */
  confidence: z.number().min(0).max(100).optional().meta({ description: '0 to 100' }),
  /** Where it was seen or who reported it. */
  source: z.string().min(1).max(200).optional(),
  /** The sources that flagged it (an alert made from a correlation lists them). */
  sources: z.array(z.string().min(1).max(200)).max(100).optional(),
};

/**
 * An indicator as alerts and cases carry it: `{type, value, confidence?, source?}`. `type` takes the documented
 * `ip` and `domain`, every precise type (`ipv4`, `ipv6`, `url`, `md5`, `sha1`, `sha256`, `email`) and `hostname`;
 * parsing checks the value against it and keeps the precise type and the normalised value. `confidence` is a
 * percentage: a fraction between 0 and 1 is refused ("confidence is 0..100; got 0.9 (did you mean 90?)").
 *
 * @example
 * ```ts
 * parseRecord(IndicatorSchema, { type: 'ip', value: '8.8.8.8', confidence: 90 }, 'indicator');
 * // { type: 'ipv4', value: '8.8.8.8', confidence: 90 }
 * ```
 */
export const IndicatorSchema = z
  .strictObject({ type: typeName, value, ...extras, confidence: confidenceSchema().optional() })
  .transform(normalised);

/** An indicator record as given: `type` may be an alias (`ip`, `hostname`). */
export type IndicatorInput = z.input<typeof IndicatorSchema>;

/** An indicator record once parsed (what stored alerts and cases hold): the precise type, the normalised value. */
export const IndicatorRecordSchema = z.strictObject({ type: z.enum(INDICATOR_TYPES), value, ...extras });

/** An indicator record once parsed: the precise type and the normalised value. */
export type IndicatorRecord = z.output<typeof IndicatorRecordSchema>;

/**
 * The input of `Integration.enrichIndicator`: `{type, value}` only. Parsing resolves `type` as
 * {@link IndicatorSchema} does.
 */
export const IndicatorRefSchema = z.strictObject({ type: typeName, value }).transform(normalised);

/** `{type, value}` as given to `enrichIndicator`. */
export type IndicatorRef = z.input<typeof IndicatorRefSchema>;
