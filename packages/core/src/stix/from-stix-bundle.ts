import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { readStixBundleEntries, type StixEntryValue, type StixSkip } from './read-stix-bundle.js';

/** An indicator read from a STIX bundle by {@link fromStixBundle}. */
export interface StixBundleIndicator {
  /** The STIX indicator object's id; an object whose pattern ORs several values gives several with this id. */
  id: string;
  /** The precise type, from the pattern's object path. */
  type: IndicatorType;
  /** The normalised value, as `parseIndicator` gives it. */
  value: string;
  /** The object's `confidence` (0..100), when it has a valid one. */
  confidence?: number;
  /** The object's `labels` (empty when it has none). */
  labels: string[];
}

/** An indicator object, or part of its pattern, that {@link fromStixBundle} could not read, and why. */
export interface StixBundleSkip {
  /** The STIX id (`objects[<n>]` when the object has none). */
  id: string;
  /** Why. */
  reason: string;
  /** The object's 0-based position in the bundle's `objects`. */
  index: number;
}

/** What {@link fromStixBundle} returns. */
export interface StixBundleReading {
  indicators: StixBundleIndicator[];
  skipped: StixBundleSkip[];
}

/** Options of {@link fromStixBundle}. */
export interface FromStixBundleOptions {
  /** What "now" is when deciding whether an indicator's `valid_until` has passed (default: the current time). */
  readonly now?: Date | number;
}

/**
 * Reads the indicators back out of a STIX 2.1 (or 2.0) bundle, given as JSON text or parsed. Each indicator
 * object's pattern is read when it is one or more `[object:path = 'literal']` comparisons joined by OR (inside one
 * observation or between observations), for the object paths {@link toStixPattern} writes (hash names in any case,
 * with or without hyphen); values are checked and normalised by `parseIndicator`.
 *
 * Nothing is dropped unnoticed: `skipped` names each indicator, or part of a pattern, that was not read, and why
 * (a pattern part using AND, FOLLOWEDBY, a qualifier or another operator; a property threatlib does not read; a value
 * that is not a valid indicator or is an address range; a revoked or expired indicator; another `pattern_type`; an
 * older version of an indicator the bundle holds again). Objects that are not indicators are passed over.
 *
 * @throws {@link ValidationError} when the input is not JSON, or not a bundle (`type` other than `bundle`, `objects`
 * not a list).
 *
 * @example
 * ```ts
 * const { indicators, skipped } = fromStixBundle(await readFile('feed.json', 'utf8'));
 * for (const { type, value, confidence } of indicators) console.log(type, value, confidence);
 * for (const { id, reason } of skipped) console.warn(`${id}: ${reason}`);
 * ```
 */
export function fromStixBundle(bundle: unknown, options: FromStixBundleOptions = {}): StixBundleReading {
  const now =
    options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : options.now;
  const read = readStixBundleEntries(bundle, now);
  if (!read.ok) throw new ValidationError('STIX bundle', read.issues);
  const indicators: StixBundleIndicator[] = [];
  const skipped: StixBundleSkip[] = read.value.skipped.map(copySkip);
  for (const entry of read.value.entries) {
    for (const found of entry.values) {
      const parsed = parseValue(found);
      if (!parsed.ok) {
        skipped.push({ id: entry.id, reason: parsed.reason, index: entry.index });
        continue;
      }
      indicators.push({
        id: entry.id,
        type: parsed.type,
        value: parsed.value,
        ...(entry.confidence === undefined ? {} : { confidence: entry.confidence }),
        labels: [...entry.labels],
      });
    }
  }
  skipped.sort((a, b) => a.index - b.index);
  return { indicators, skipped };
}

// A single address written as a full-length range (`198.51.100.7/32`, `2001:db8::1/128`) is that address.
const SINGLE_ADDRESS_RANGE: Readonly<Partial<Record<IndicatorType, RegExp>>> = { ipv4: /\/32$/, ipv6: /\/128$/ };

function parseValue(
  found: StixEntryValue,
): { ok: true; type: IndicatorType; value: string } | { ok: false; reason: string } {
  let text = found.value;
  const single = SINGLE_ADDRESS_RANGE[found.type];
  if (single?.test(text)) text = text.replace(single, '');
  else if ((found.type === 'ipv4' || found.type === 'ipv6') && text.includes('/')) {
    return {
      ok: false,
      reason: `${found.where} ${JSON.stringify(truncate(text))} is an address range, not a single indicator (a local list of format stix matches ranges)`,
    };
  }
  try {
    const { type, value } = parseIndicator(text, found.type);
    return { ok: true, type, value };
  } catch (error) {
    if (!InvalidIndicatorError.isInstance(error)) throw error;
    return { ok: false, reason: `${found.where} ${JSON.stringify(truncate(text))}: ${error.reason}` };
  }
}

function copySkip(skip: StixSkip): StixBundleSkip {
  return { id: skip.id, reason: skip.reason, index: skip.index };
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
