/**
 * Every kind of indicator threatlib understands, in no particular order.
 *
 * @example
 * ```ts
 * for (const type of INDICATOR_TYPES) console.log(type);
 * ```
 */
export const INDICATOR_TYPES = ['ipv4', 'ipv6', 'domain', 'url', 'md5', 'sha1', 'sha256', 'email'] as const;

/** One of {@link INDICATOR_TYPES}: what kind of thing an {@link Indicator} is. */
export type IndicatorType = (typeof INDICATOR_TYPES)[number];

/**
 * An indicator of compromise, checked and normalised by `parseIndicator`.
 *
 * @example
 * ```ts
 * const indicator: Indicator = parseIndicator('hxxp://evil[.]com/x');
 * // { type: 'url', value: 'http://evil.com/x', input: 'hxxp://evil[.]com/x', defanged: true }
 * ```
 */
export interface Indicator {
  /** What kind of indicator this is. */
  type: IndicatorType;
  /** The normalised form, fit for comparing and de-duplicating indicators. */
  value: string;
  /** The input exactly as it was given, before trimming and refanging. */
  input: string;
  /** Whether refanging changed the input (it was written in a defanged form such as `evil[.]com`). */
  defanged: boolean;
}

/**
 * Whether `value` is one of {@link INDICATOR_TYPES}.
 *
 * @example
 * ```ts
 * const type = isIndicatorType(flags.type) ? flags.type : undefined;
 * ```
 */
export function isIndicatorType(value: unknown): value is IndicatorType {
  return typeof value === 'string' && (INDICATOR_TYPES as readonly string[]).includes(value);
}
