import type { IndicatorType } from '../indicators/indicator.js';
import { indicatorTypesForAttributes } from '../lists/misp-attribute-types.js';

const IP: readonly IndicatorType[] = ['ipv4', 'ipv6'];

/**
 * Which part of a composite attribute holds what (MISP/MISP app/Model/MispAttribute.php: a composite type's value is
 * `value1|value2`). `null` is a part threatlib does not look up (a file name, a port). The indicator types here are
 * those `indicatorTypesForAttributes` gives each type; a test keeps the two in step.
 */
export const COMPOSITE_PARTS: Readonly<Record<string, readonly [IndicatorTypes, IndicatorTypes]>> = {
  'domain|ip': [['domain'], IP],
  'ip-src|port': [IP, null],
  'ip-dst|port': [IP, null],
  'hostname|port': [['domain'], null],
  'filename|md5': [null, ['md5']],
  'filename|sha1': [null, ['sha1']],
  'filename|sha256': [null, ['sha256']],
  // Written `<file name>|<md5>` in events and feeds.
  'malware-sample': [null, ['md5']],
};

type IndicatorTypes = readonly IndicatorType[] | null;

/**
 * Attribute types whose value is a page about the event (a report, a blog post), not something to block: MISP gives
 * them `to_ids: false` by default. Their http(s) values become the references of the answers the event gives.
 */
export const REFERENCE_ATTRIBUTE_TYPES: ReadonlySet<string> = new Set(['link']);

/**
 * Attribute types MISP creates with `to_ids: false` (its describeTypes `sane_defaults`), among those threatlib looks
 * up; an attribute that carries no `to_ids` flag gets its type's default, as PyMISP gives it.
 */
const NOT_FOR_IDS_BY_DEFAULT: ReadonlySet<string> = new Set([
  'link',
  'email-reply-to',
  'target-email',
  'whois-registrant-email',
  'dns-soa-email',
]);

/** The `to_ids` an attribute of `type` has when the feed leaves the flag out. */
export function defaultToIds(type: string): boolean {
  return !NOT_FOR_IDS_BY_DEFAULT.has(type);
}

/** One part of an attribute's value and the indicator types it may be. */
export interface AttributePart {
  readonly text: string;
  readonly types: readonly IndicatorType[];
}

/**
 * The parts of a MISP attribute that threatlib can look up: the whole value of a plain type, the right part of a
 * composite one (the hash of `filename|md5`, the address of `ip-dst|port`, both parts of `domain|ip`). Gives the
 * reason instead when the type names nothing threatlib looks up, or a composite value is not two parts.
 *
 * @example
 * ```ts
 * attributeParts('ip-dst|port', '198.51.100.7|443'); // [{ text: '198.51.100.7', types: ['ipv4', 'ipv6'] }]
 * ```
 */
export function attributeParts(type: string, value: string): AttributePart[] | { reason: string } {
  const composite = COMPOSITE_PARTS[type];
  if (composite !== undefined) {
    const [left, right] = composite;
    const bar = left === null ? value.lastIndexOf('|') : value.indexOf('|');
    if (bar === -1) return { reason: `a ${type} value is two parts separated by "|"` };
    const parts: AttributePart[] = [];
    if (left !== null) parts.push({ text: value.slice(0, bar), types: left });
    if (right !== null) {
      const text = value.slice(bar + 1);
      if (left !== null && text.includes('|')) return { reason: `a ${type} value is two parts separated by "|"` };
      parts.push({ text, types: right });
    }
    return parts;
  }
  // 'ALL' is how warninglists say "every type"; no attribute has it.
  const mapping = type === 'ALL' ? undefined : indicatorTypesForAttributes([type]);
  if (mapping === undefined || mapping.unmapped.length > 0) {
    return { reason: 'of a type threatlib does not look up' };
  }
  return [{ text: value, types: mapping.types }];
}
