// How an entry of a local list becomes a matcher rule: a line of a plain or CSV list, a value of a STIX pattern, and
// the `host` matching (addresses with URLs on them, domains with names under them, URLs whatever their fragment).
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { INDICATOR_TYPES, type Indicator, type IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { refang } from '../indicators/refang.js';
import type { StixEntryValue } from '../stix/read-stix-bundle.js';
import type { MatcherRule } from './indicator-matcher.js';
import { parseIpRange } from './ip-range.js';
import { cidrRule, type EntryResult, exactRule, normaliseHostname } from './list-entry.js';
import type { LocalListMatchMode } from './local-list.js';

// A CIDR range, which parseIndicator refuses as an indicator but which a list uses to cover many addresses.
const CIDR_SHAPE = /^[0-9a-f:.]+\/\d{1,3}$/i;
const HOST_TYPES: readonly IndicatorType[] = ['domain', 'url', 'email'];
// Ranges apply to addresses only in `exact` mode; in `host` mode to URLs on them too.
const IP_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];
const IP_HOST_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6', 'url'];

/** A value of a STIX pattern as a rule: of the pattern's own type, an address range for an address type. */
export function stixEntryRule(found: StixEntryValue, match: LocalListMatchMode): EntryResult<undefined> {
  const quoted = JSON.stringify(found.value.length > 100 ? `${found.value.slice(0, 100)}…` : found.value);
  if ((found.type === 'ipv4' || found.type === 'ipv6') && found.value.includes('/')) {
    const range = parseIpRange(found.value);
    if (!range.ok) return { ok: false, reason: `${found.where} ${quoted}: ${range.reason}` };
    const family = found.type === 'ipv4' ? 4 : 6;
    // An IPv4-mapped IPv6 range is kept as the IPv4 range it covers.
    if (range.range.family !== family && !(family === 6 && range.range.family === 4)) {
      return { ok: false, reason: `${found.where} ${quoted} is not an IPv${family} range` };
    }
    return cidrRule(found.value, match === 'host' ? IP_HOST_TYPES : IP_TYPES, undefined);
  }
  let value: string;
  try {
    value = parseIndicator(found.value, found.type).value;
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error))
      return { ok: false, reason: `${found.where} ${quoted}: ${error.reason}` };
    throw error;
  }
  const rule = match === 'host' ? hostRule(value, found.type, undefined) : undefined;
  return { ok: true, rule: rule ?? { kind: 'exact', value, types: [found.type], entry: value, tag: undefined } };
}

/** An entry of a plain or CSV local list as a rule tagged with its line. */
export function localEntryRule(text: string, line: number, match: LocalListMatchMode): EntryResult<number> {
  const refanged = refang(text);
  if (refanged.startsWith('*.')) {
    const host = normaliseHostname(refanged.slice(2));
    if (!host.ok) return { ok: false, reason: `wildcard host name ${host.reason}` };
    const entry = `*.${host.hostname}`;
    return { ok: true, rule: { kind: 'hostname', hostname: host.hostname, types: HOST_TYPES, entry, tag: line } };
  }
  if (CIDR_SHAPE.test(refanged)) return cidrRule(refanged, match === 'host' ? IP_HOST_TYPES : IP_TYPES, line);
  const exact = exactRule(text, INDICATOR_TYPES, line);
  if (match === 'exact' || !exact.ok || exact.rule.kind !== 'exact') return exact;
  const rule = hostRule(exact.rule.value, exact.rule.types[0], line);
  return rule === undefined ? exact : { ok: true, rule };
}

/**
 * The `host`-mode rule for an entry already parsed as an indicator of `type`: an address as a one-address range
 * that URLs on it match too, a domain as a name with everything under it, a URL without its fragment. Undefined for
 * other types, which match exactly.
 */
export function hostRule<T>(value: string, type: IndicatorType | undefined, line: T): MatcherRule<T> | undefined {
  switch (type) {
    case 'ipv4':
    case 'ipv6': {
      const parsed = parseIpRange(value);
      if (!parsed.ok) return undefined;
      // The entry shows the address as listed, not as a /32, so evidence for the address itself names only the line.
      return { kind: 'cidr', range: parsed.range, types: IP_HOST_TYPES, entry: value, tag: line };
    }
    case 'domain':
      return { kind: 'hostname', hostname: value, types: HOST_TYPES, entry: value, tag: line };
    case 'url': {
      const url = stripFragment(value);
      return { kind: 'exact', value: url, types: ['url'], entry: url, tag: line };
    }
    default:
      return undefined;
  }
}

/** A URL indicator without its fragment (the part after `#`, which never leaves the client); others as they are. */
export function withoutFragment(indicator: Indicator): Indicator {
  if (indicator.type !== 'url') return indicator;
  const value = stripFragment(indicator.value);
  return value === indicator.value ? indicator : { ...indicator, value };
}

function stripFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
