import { quoteForDisplay } from '../text/control-characters.js';

/** Most characters of a refused string a validation message quotes. */
const MAX_QUOTED_CHARS = 100;

/**
 * How a validation message shows the value it refused: a string quoted as JSON and cut to 100 characters (every
 * control and line-separator character escaped, so the message stays one line), a number,
 * boolean or null as JSON, anything else by its kind (`an array`, `an object`). The whole value is never serialised:
 * `JSON.stringify` of an array nested some thousands deep overflows the stack (a `RangeError` instead of the
 * validation error), and a string of megabytes would be copied whole into the message.
 *
 * @example
 * ```ts
 * shownInput('address'); // '"address"'
 * shownInput([[[]]]); // 'an array'
 * ```
 */
export function shownInput(value: unknown): string {
  if (typeof value === 'string') {
    return quoteForDisplay(value, MAX_QUOTED_CHARS);
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
