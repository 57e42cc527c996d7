import { INDICATOR_TYPES, type IndicatorType } from '../indicators/indicator.js';

const IP: readonly IndicatorType[] = ['ipv4', 'ipv6'];

// MISP attribute types (MISP/MISP app/Model/Attribute.php) that carry something threatlib can look up. Composite
// types (`domain|ip`, `filename|md5`) count for each part MISP checks, since MISP splits them on `|` before
// matching. Types with no counterpart here (sha512, ssdeep, filename, AS, …) are left out: such entries can never
// match a threatlib indicator.
const ATTRIBUTE_TYPES: Readonly<Record<string, readonly IndicatorType[]>> = {
  ip: IP,
  'ip-src': IP,
  'ip-dst': IP,
  'ip-src|port': IP,
  'ip-dst|port': IP,
  'domain|ip': ['domain', ...IP],
  domain: ['domain'],
  hostname: ['domain'],
  'hostname|port': ['domain'],
  url: ['url'],
  uri: ['url'],
  link: ['url'],
  md5: ['md5'],
  'filename|md5': ['md5'],
  'malware-sample': ['md5'],
  'x509-fingerprint-md5': ['md5'],
  sha1: ['sha1'],
  'filename|sha1': ['sha1'],
  'x509-fingerprint-sha1': ['sha1'],
  sha256: ['sha256'],
  'filename|sha256': ['sha256'],
  'x509-fingerprint-sha256': ['sha256'],
  email: ['email'],
  'email-src': ['email'],
  'email-dst': ['email'],
  'email-reply-to': ['email'],
  'target-email': ['email'],
  'whois-registrant-email': ['email'],
  'dns-soa-email': ['email'],
};

/** Which indicator types a warninglist's `matching_attributes` cover, and which attribute types had no counterpart. */
export interface AttributeTypeMapping {
  /** Indicator types the list applies to, in {@link INDICATOR_TYPES} order. */
  readonly types: readonly IndicatorType[];
  /** Attribute types that name nothing threatlib looks up (kept so a loader can say why a list never matches). */
  readonly unmapped: readonly string[];
}

/**
 * Maps MISP attribute types to threatlib indicator types. No attributes at all, or `ALL`, means every type: MISP
 * itself matches such a list against any attribute.
 *
 * @example
 * ```ts
 * indicatorTypesForAttributes(['ip-src', 'domain|ip', 'ssdeep']);
 * // { types: ['ipv4', 'ipv6', 'domain'], unmapped: ['ssdeep'] }
 * ```
 */
export function indicatorTypesForAttributes(attributes: readonly string[] | undefined): AttributeTypeMapping {
  if (attributes === undefined || attributes.length === 0 || attributes.includes('ALL')) {
    return { types: [...INDICATOR_TYPES], unmapped: [] };
  }
  const covered = new Set<IndicatorType>();
  const unmapped: string[] = [];
  for (const attribute of attributes) {
    const types = ATTRIBUTE_TYPES[attribute];
    if (types === undefined) unmapped.push(attribute);
    else for (const type of types) covered.add(type);
  }
  return { types: INDICATOR_TYPES.filter((type) => covered.has(type)), unmapped };
}
