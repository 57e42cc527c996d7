import * as z from 'zod';
import { shownInput } from '../records/shown-input.js';

/** What a duration option is measured in, and the values it takes. */
export interface DurationBounds {
  /** The option's name as the message says it (`ttl`, `windowMs`). */
  name: string;
  unit: 'seconds' | 'milliseconds';
  /** Smallest value taken (besides 0 when `zeroAllowed`). */
  min: number;
  /** Largest value taken. */
  max: number;
  /** Whether 0 is taken as well (an option where 0 turns something off). Default false. */
  zeroAllowed?: boolean;
  /** Whether only whole numbers are taken. Default false. */
  integer?: boolean;
}

const PER_SECOND = { seconds: 1, milliseconds: 1000 } as const;
const TEXT_UNITS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3_600,
  d: 86_400,
  w: 604_800,
};
const DURATION_TEXT = /^\s*(\d{1,15}(?:\.\d{1,6})?)\s*(ms|s|sec|m|min|h|d|w)?\s*$/i;

/**
 * Why `value` is not a duration in `bounds.unit` within the bounds, or undefined when it is one. The traps of a unit
 * are named with what was probably meant: milliseconds given for seconds (`ttl: 86400000` → "did you mean 86400?"),
 * seconds given for milliseconds (`timeout: 30` → "did you mean 30000?"), and a text such as `'15m'` where a number
 * is expected (→ "did you mean 900000?"). A hint is given only when the value it suggests is itself within bounds.
 *
 * @example
 * ```ts
 * durationProblem(86_400_000, { name: 'ttl', unit: 'seconds', min: 1, max: 31_536_000 });
 * // 'ttl is in seconds, at most 31536000 (365 days); got 86400000 (did you mean 86400?)'
 * ```
 */
export function durationProblem(value: unknown, bounds: DurationBounds): string | undefined {
  const { name, unit, min, max } = bounds;
  if (typeof value === 'string') {
    const meant = durationText(value, unit);
    return `${name} is a number of ${unit}, not a text; got ${shownInput(value)}${hint(meant, bounds)}`;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return `${name} is a number of ${unit}, from ${min} to ${max}; got ${shownInput(value)}`;
  }
  if (value === 0 && bounds.zeroAllowed) return undefined;
  if (value > max) {
    // Milliseconds meant as seconds are whole seconds (86400000); 31536001 is no such thing.
    const meant = unit === 'seconds' && Number.isInteger(value / 1000) ? value / 1000 : undefined;
    return `${name} is in ${unit}, at most ${max} (${spoken(max, unit)}); got ${value}${hint(meant, bounds)}`;
  }
  if (value < min) {
    const meant = unit === 'milliseconds' && value > 0 ? value * 1000 : undefined;
    const least = bounds.zeroAllowed ? ` (or 0 to turn it off)` : '';
    return `${name} is in ${unit}, at least ${min}${least}; got ${value}${hint(meant, bounds)}`;
  }
  if (bounds.integer && !Number.isInteger(value)) return `${name} is a whole number of ${unit}; got ${value}`;
  return undefined;
}

/**
 * A zod schema of a duration option, refusing what {@link durationProblem} refuses with its message. Its JSON Schema
 * keeps the type and the bounds.
 *
 * @example
 * ```ts
 * const windowMs = durationSchema({ name: 'windowMs', unit: 'milliseconds', min: 1_000, max: 86_400_000 });
 * ```
 */
export function durationSchema(bounds: DurationBounds) {
  const error = (issue: { input?: unknown }) => durationProblem(issue.input, bounds);
  const base = bounds.integer ? z.int({ error }) : z.number({ error });
  const ranged = base.min(bounds.zeroAllowed ? 0 : bounds.min, { error }).max(bounds.max, { error });
  return bounds.zeroAllowed && bounds.min > 0
    ? ranged.refine((value) => value === 0 || value >= bounds.min, { error })
    : ranged;
}

/** A text such as `'15m'`, `'30 s'` or `'86400'` in `unit`, or undefined when it is none. */
function durationText(text: string, unit: DurationBounds['unit']): number | undefined {
  const match = DURATION_TEXT.exec(text);
  if (!match?.[1]) return undefined;
  const amount = Number(match[1]);
  if (!match[2]) return amount;
  const seconds = amount * (TEXT_UNITS[match[2].toLowerCase()] ?? Number.NaN);
  const value = Number((seconds * PER_SECOND[unit]).toPrecision(12));
  return Number.isFinite(value) ? value : undefined;
}

/** ` (did you mean N?)` when `meant` is a value the option takes; empty otherwise. */
function hint(meant: number | undefined, bounds: DurationBounds): string {
  if (meant === undefined || !takes(meant, bounds)) return '';
  return ` (did you mean ${meant}?)`;
}

function takes(value: number, bounds: DurationBounds): boolean {
  if (bounds.integer && !Number.isInteger(value)) return false;
  return (value === 0 && bounds.zeroAllowed === true) || (value >= bounds.min && value <= bounds.max);
}

/** `max` in words: `365 days`, `1 day`, `10 minutes`. */
function spoken(amount: number, unit: DurationBounds['unit']): string {
  const seconds = amount / PER_SECOND[unit];
  for (const [size, word] of [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ] as const) {
    if (seconds >= size && Number.isInteger(seconds / size)) {
      const count = seconds / size;
      return `${count} ${word}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} s`;
}
