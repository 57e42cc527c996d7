import type { Indicator } from '../indicators/indicator.js';
import { checkIpv4 } from '../indicators/ipv4.js';
import { checkIpv6 } from '../indicators/ipv6.js';
import { refang } from '../indicators/refang.js';
import { ipv6ToBigInt } from './ip-range.js';
import { normaliseHostname } from './list-entry.js';

/**
 * A host an indicator names: an IPv4 address (dotted quad), an IPv6 address (any valid spelling, no brackets) or a
 * host name (lower case, punycode, no trailing dot).
 */
export type HostReading =
  | { readonly kind: 'ipv4'; readonly value: string }
  | { readonly kind: 'ipv6'; readonly value: string }
  | { readonly kind: 'name'; readonly value: string };

/**
 * The host of a URL as `parseIndicator` serialises it (WHATWG): an IPv6 host keeps its brackets. The serialisation
 * percent-encodes `@`, `/`, `\` and `:` in user info, so the authority ends at the first `/` after `//` and the
 * host follows its only `@`.
 */
export function serialisedUrlHost(href: string): string {
  const start = href.indexOf('//') + 2;
  const slash = href.indexOf('/', start);
  return hostAt(href, start, slash === -1 ? href.length : slash, 'last');
}

/** The host of `serialised` (from {@link serialisedUrlHost}) as a {@link HostReading}. */
export function readSerialisedHost(serialised: string): HostReading {
  // WHATWG has already checked and compressed it (`::ffff:7f00:1`); every spelling of an address looks up alike.
  if (serialised.startsWith('[')) return { kind: 'ipv6', value: serialised.slice(1, -1) };
  return /^\d+\.\d+\.\d+\.\d+$/.test(serialised)
    ? { kind: 'ipv4', value: serialised }
    : { kind: 'name', value: serialised };
}

/**
 * The hosts of a URL indicator other than the one its normalised value names, as RFC 3986 parsers would read its
 * original input: the authority ends at the first `/`, `?` or `#` (not at `\`), and the host follows the first `@`
 * (or, for lenient parsers, the last). `undefined` in the result is a reading that is no host at all (it has a
 * `\`, a control character, broken percent-encoding...): nothing can vouch for it.
 *
 * `parseIndicator` refuses URLs whose readings differ, so for its indicators this is empty; it is how a list stays
 * honest about an indicator built some other way (or a parser bug): a benign list may only clear an indicator when
 * it covers every reading, and a blocklist flags any.
 */
export function otherHostReadings(
  indicator: Indicator,
  serialised: string = serialisedUrlHost(indicator.value),
): readonly (HostReading | undefined)[] {
  // This runs on every URL a blocklist does not hold, so it finds the hosts by index, allocates only the host
  // strings, and stops there when they are the serialised host as written (the common case). A WHATWG
  // serialisation is itself unambiguous (user info percent-encodes "@", "/" and "\\"), so input written that way
  // needs no reading at all.
  if (indicator.type !== 'url' || indicator.input === indicator.value) return NONE;
  const trimmed = indicator.input.trim();
  // Without brackets refanging changes at most the scheme (`hxxp`), never the authority: skip its regexes.
  const text = DEFANG_BRACKET.test(trimmed) ? refang(trimmed) : trimmed;
  const scheme = text.indexOf('://');
  const start = scheme === -1 ? 0 : scheme + 3;
  const end = authorityEnd(text, start);
  const first = hostAt(text, start, end, 'first');
  const last = hostAt(text, start, end, 'last');
  const raw = first === last ? [first] : [first, last];

  let others: (HostReading | undefined)[] | undefined;
  let primary: HostReading | undefined;
  for (const host of raw) {
    if (host === serialised || host.toLowerCase() === serialised) continue;
    primary ??= readSerialisedHost(serialised);
    const reading = readRawHost(host);
    if (reading !== undefined && sameHost(reading, primary)) continue;
    others ??= [];
    others.push(reading);
  }
  return others ?? NONE;
}

const NONE: readonly (HostReading | undefined)[] = Object.freeze([]);
const DEFANG_BRACKET = /[[({]/;

/** Where the authority that starts at `start` ends for RFC 3986: the first `/`, `?` or `#`, or the end of `text`. */
function authorityEnd(text: string, start: number): number {
  for (let i = start; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === SLASH || code === QUESTION_MARK || code === HASH) return i;
  }
  return text.length;
}

const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;
const HASH = 0x23;
const OPEN_BRACKET = 0x5b;

/** The host in `text[start, end)`: after the first or last `@`, without the port; IPv6 keeps its brackets. */
function hostAt(text: string, start: number, end: number, at: 'first' | 'last'): string {
  const sign = at === 'first' ? text.indexOf('@', start) : text.lastIndexOf('@', end - 1);
  const from = sign >= start && sign < end ? sign + 1 : start;
  if (text.charCodeAt(from) === OPEN_BRACKET) {
    const close = text.indexOf(']', from);
    return text.slice(from, close === -1 || close >= end ? end : close + 1);
  }
  const colon = text.indexOf(':', from);
  return text.slice(from, colon === -1 || colon >= end ? end : colon);
}

function sameHost(a: HostReading, b: HostReading): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind === 'ipv6' ? ipv6ToBigInt(a.value) === ipv6ToBigInt(b.value) : a.value === b.value;
}

function readRawHost(raw: string): HostReading | undefined {
  if (raw.startsWith('[')) {
    const checked = checkIpv6(raw);
    return checked.ok ? { kind: 'ipv6', value: checked.value } : undefined;
  }
  let host: string;
  try {
    host = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (/^[\d.]+$/.test(host)) {
    const checked = checkIpv4(host);
    return checked.ok && !host.endsWith('.') ? { kind: 'ipv4', value: checked.value } : undefined;
  }
  const name = normaliseHostname(host);
  return name.ok && !host.startsWith('.') ? { kind: 'name', value: name.hostname } : undefined;
}
