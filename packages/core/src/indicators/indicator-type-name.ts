import { INDICATOR_TYPES, type IndicatorType } from './indicator.js';

/**
 * Names a caller may give for an indicator's type, besides the precise {@link INDICATOR_TYPES}: `ip` is "an IPv4 or
 * IPv6 address, find out which", `hostname` is another name for `domain`. Parsing resolves them, so results always
 * report the precise type.
 *
 * @example
 * ```ts
 * parseIndicator('2001:db8::1', 'ip').type; // 'ipv6'
 * parseIndicator('Example.COM', 'hostname').type; // 'domain'
 * ```
 */
export const INDICATOR_TYPE_ALIASES = {
  ip: ['ipv4', 'ipv6'],
  hostname: ['domain'],
} as const satisfies Record<string, readonly IndicatorType[]>;

/** Every type name accepted wherever a type is given (REST, queue messages, `scout`, alerts, cases). */
export const INDICATOR_TYPE_NAMES = [
  ...INDICATOR_TYPES,
  ...(Object.keys(INDICATOR_TYPE_ALIASES) as Array<keyof typeof INDICATOR_TYPE_ALIASES>),
] as const;

/** One of {@link INDICATOR_TYPE_NAMES}: a precise {@link IndicatorType} or an alias (`ip`, `hostname`). */
export type IndicatorTypeName = IndicatorType | keyof typeof INDICATOR_TYPE_ALIASES;

/**
 * Whether `value` is one of {@link INDICATOR_TYPE_NAMES}.
 *
 * @example
 * ```ts
 * isIndicatorTypeName('ip'); // true
 * isIndicatorTypeName('ipv5'); // false
 * ```
 */
export function isIndicatorTypeName(value: unknown): value is IndicatorTypeName {
  return typeof value === 'string' && (INDICATOR_TYPE_NAMES as readonly string[]).includes(value);
}
