import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { IndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { STIX_OBJECT_PATHS } from './stix-object-paths.js';

// STIX patterning grammar (STIX 2.1 part 9, the OASIS STIXPattern.g4): a path component that is not an
// IdentifierWithoutHyphen must be written as a string literal, so `hashes.MD5` but `hashes.'SHA-256'`.
const IDENTIFIER_WITHOUT_HYPHEN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A STIX 2.1 pattern matching one indicator: `[ipv4-addr:value = '198.51.100.7']`, `[domain-name:value = '…']`,
 * `[url:value = '…']`, `[email-addr:value = '…']`, `[ipv6-addr:value = '…']`, and for hashes
 * `[file:hashes.MD5 = '…']`, `[file:hashes.'SHA-1' = '…']`, `[file:hashes.'SHA-256' = '…']`.
 *
 * The value is first checked and normalised by `parseIndicator` (so `type` may be an alias: `ip` becomes `ipv4` or
 * `ipv6`, `hostname` becomes `domain`), then written as a pattern string literal: in single quotes, with `'` written
 * `\'` and `\` written `\\`, and every other character as it is (the grammar knows no other escape).
 *
 * @throws {@link InvalidIndicatorError} when `indicator` is not `{type, value}` or the value is not of its type.
 *
 * @example
 * ```ts
 * toStixPattern({ type: 'ip', value: '2001:DB8::1' }); // "[ipv6-addr:value = '2001:db8::1']"
 * toStixPattern(parseIndicator("http://evil.example/it's")); // "[url:value = 'http://evil.example/it\\'s']"
 * toStixPattern({ type: 'sha256', value: 'E3B0…' }); // "[file:hashes.'SHA-256' = 'e3b0…']"
 * ```
 */
export function toStixPattern(indicator: { readonly type: IndicatorTypeName; readonly value: string }): string {
  if (typeof indicator !== 'object' || indicator === null) {
    throw new InvalidIndicatorError(String(indicator), 'expected an indicator {type, value}');
  }
  const { type, value } = parseIndicator(indicator.value, indicator.type);
  const { objectType, path } = STIX_OBJECT_PATHS[type];
  return `[${objectType}:${path.map(pathComponent).join('.')} = ${stixStringLiteral(value)}]`;
}

/**
 * `text` as a STIX pattern string literal: single-quoted, `\` and `'` escaped with a backslash, nothing else changed.
 *
 * @example
 * ```ts
 * stixStringLiteral("a'b\\c"); // "'a\\'b\\\\c'"
 * ```
 */
export function stixStringLiteral(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function pathComponent(name: string): string {
  return IDENTIFIER_WITHOUT_HYPHEN.test(name) ? name : stixStringLiteral(name);
}
