import type { IndicatorType } from '../indicators/indicator.js';

/** Where the STIX 2.1 cyber-observable model keeps an indicator of one of core's types: object type, then path. */
export interface StixObjectPath {
  /** The cyber-observable object type (`ipv4-addr`, `file`, …). */
  readonly objectType: string;
  /** The property path inside that object (`['value']`, `['hashes', 'SHA-256']`). */
  readonly path: readonly string[];
}

/**
 * Each indicator type's place in the STIX 2.1 observable model (STIX 2.1 part 6): addresses, domain names, URLs and
 * e-mail addresses are their object's `value`; hashes are keys of a `file`'s `hashes`, named as the hashing-algorithm
 * vocabulary (section 10.7) spells them: `MD5`, `SHA-1`, `SHA-256`.
 */
export const STIX_OBJECT_PATHS: Readonly<Record<IndicatorType, StixObjectPath>> = {
  ipv4: { objectType: 'ipv4-addr', path: ['value'] },
  ipv6: { objectType: 'ipv6-addr', path: ['value'] },
  domain: { objectType: 'domain-name', path: ['value'] },
  url: { objectType: 'url', path: ['value'] },
  email: { objectType: 'email-addr', path: ['value'] },
  md5: { objectType: 'file', path: ['hashes', 'MD5'] },
  sha1: { objectType: 'file', path: ['hashes', 'SHA-1'] },
  sha256: { objectType: 'file', path: ['hashes', 'SHA-256'] },
};

// The hashing-algorithm vocabulary's names without their hyphens and in upper case, which is how the OASIS pattern
// validator compares them too (`SHA256`, `sha-256` and `'SHA-256'` all name SHA-256).
const HASH_TYPES: Readonly<Record<string, IndicatorType>> = { MD5: 'md5', SHA1: 'sha1', SHA256: 'sha256' };

/**
 * The indicator type a STIX object path holds, or why threatlib cannot read it: an unknown object type or property,
 * or a hash algorithm that is not MD5, SHA-1 or SHA-256.
 */
export function indicatorTypeAt(
  objectType: string,
  path: readonly string[],
): { ok: true; type: IndicatorType } | { ok: false; reason: string } {
  const written = `${objectType}:${path.join('.')}`;
  if (path.length === 1 && path[0] === 'value') {
    const type = (Object.keys(STIX_OBJECT_PATHS) as IndicatorType[]).find(
      (candidate) =>
        STIX_OBJECT_PATHS[candidate].objectType === objectType && STIX_OBJECT_PATHS[candidate].path[0] === 'value',
    );
    if (type !== undefined) return { ok: true, type };
  }
  if (objectType === 'file' && path.length === 2 && path[0] === 'hashes') {
    const algorithm = path[1] ?? '';
    const type = HASH_TYPES[algorithm.toUpperCase().replaceAll('-', '')];
    if (type !== undefined) return { ok: true, type };
    return {
      ok: false,
      reason: `${written}: the hash algorithm ${JSON.stringify(algorithm)} is not one threatlib knows (MD5, SHA-1, SHA-256)`,
    };
  }
  return {
    ok: false,
    reason:
      `${written} is not a property threatlib reads (it reads ipv4-addr, ipv6-addr, domain-name, url and ` +
      'email-addr values, and file MD5, SHA-1 and SHA-256 hashes)',
  };
}
