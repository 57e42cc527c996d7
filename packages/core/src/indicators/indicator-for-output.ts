import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { quoteForDisplay } from '../text/control-characters.js';
import { INDICATOR_TYPES, isIndicatorType } from './indicator.js';
import { parseIndicator } from './parse-indicator.js';

/**
 * The value to write for an indicator of `type` into a list or record format (a GuardDuty TXT list, a STIX
 * pattern, a CEF or LEEF field, a reference set): `value` checked and normalised as `parseIndicator(value, type)`
 * does. Whatever is not exactly one indicator of that type is refused: a second line (`198.51.100.7\n0.0.0.0/0`),
 * whitespace, a control character, a CIDR range, a value of another type. Values read back from a store or handed
 * over by a custom source are checked here, where they are written, not only where alerts enter: a shared database
 * may hold what threatlib never accepted.
 *
 * @param type A precise indicator type (`ipv4`, `domain`...); an alias such as `ip` is refused: stored records hold
 *   precise types.
 * @throws {@link InvalidIndicatorError} naming the value (escaped for display) and why it was refused.
 *
 * @example
 * ```ts
 * indicatorForOutput('ipv6', '2001:DB8::1'); // '2001:db8::1'
 * indicatorForOutput('ipv4', '198.51.100.7\n0.0.0.0/0');
 * // throws: Invalid indicator "198.51.100.7\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token
 * ```
 */
export function indicatorForOutput(type: unknown, value: unknown): string {
  if (!isIndicatorType(type)) {
    throw new InvalidIndicatorError(
      typeof value === 'string' ? value : `(${typeof value})`,
      `unknown indicator type ${typeof type === 'string' ? quoteForDisplay(type, 40) : typeof type} (expected one of ${INDICATOR_TYPES.join(', ')})`,
    );
  }
  return parseIndicator(value as string, type).value;
}
