import type { Indicator, IndicatorType } from '../indicators/indicator.js';
import { INDICATOR_TYPES } from '../indicators/indicator.js';
import { type HostReading, otherHostReadings, readSerialisedHost, serialisedUrlHost } from './host-readings.js';
import { type IpRange, ipv4ToNumber, ipv6ToBigInt, maskIpv4, maskIpv6, unmapIpv4 } from './ip-range.js';
import { LinearRegex } from './linear-regex.js';
import { type ProbeCounter, SubstringAutomaton } from './substring-automaton.js';

/** How a list entry is compared with indicators. */
type MatchKind = 'exact' | 'hostname' | 'cidr' | 'substring' | 'regex';

interface RuleBase<T> {
  /** The indicator types the entry applies to; an indicator of another type never matches it. */
  readonly types: readonly IndicatorType[];
  /** The entry as evidence shows it (`8.8.8.8/32`, `google.com`, `/^evil/i`). */
  readonly entry: string;
  /** What the owner of the matcher wants back on a match (the list an entry came from, its line number). */
  readonly tag: T;
}

/**
 * One entry of a list, ready for an {@link IndicatorMatcher}:
 * - `exact`: the indicator's normalised value equals `value`;
 * - `hostname`: the host (of a domain, of a URL, or the domain of an email address) is `hostname` or a name under it;
 * - `cidr`: the IP address (or a URL's IP host) is in `range`;
 * - `substring`: the normalised value contains `text` (case-sensitive, as MISP compares);
 * - `regex`: `regex` matches the normalised value. It is a {@link LinearRegex} (from `compilePcreRegex`), never a
 *   JavaScript RegExp, so that no entry can make a lookup backtrack.
 */
export type MatcherRule<T> =
  | (RuleBase<T> & { readonly kind: 'exact'; readonly value: string })
  | (RuleBase<T> & { readonly kind: 'hostname'; readonly hostname: string })
  | (RuleBase<T> & { readonly kind: 'cidr'; readonly range: IpRange })
  | (RuleBase<T> & { readonly kind: 'substring'; readonly text: string })
  | (RuleBase<T> & { readonly kind: 'regex'; readonly regex: LinearRegex });

/** What {@link IndicatorMatcher.match} found: the entry that matched, how, and the tag it was added with. */
export interface MatcherHit<T> {
  readonly entry: string;
  readonly kind: MatchKind;
  readonly tag: T;
}

/** Work counters of an {@link IndicatorMatcher}, for tests and diagnostics. */
export interface MatcherStats extends ProbeCounter {
  /** Calls to {@link IndicatorMatcher.match}. */
  lookups: number;
}

interface StoredHit<T> extends MatcherHit<T> {
  /** One bit per indicator type the entry applies to (see TYPE_BITS). */
  readonly mask: number;
}

const TYPE_BITS: Readonly<Record<IndicatorType, number>> = Object.fromEntries(
  INDICATOR_TYPES.map((type, index) => [type, 1 << index]),
) as Record<IndicatorType, number>;

function maskOf(types: readonly IndicatorType[]): number {
  let mask = 0;
  for (const type of types) mask |= TYPE_BITS[type];
  return mask;
}

/** A table of networks of one address family, one map per prefix length that occurs. */
class RangeTable<K extends number | bigint> {
  readonly #byPrefix = new Map<number, Map<K, StoredHit<unknown>[]>>();
  // Longest prefix first, so the most specific entry is the one reported.
  #prefixes: number[] = [];

  get size(): number {
    return this.#prefixes.length;
  }

  add(prefix: number, network: K, hit: StoredHit<unknown>): boolean {
    let table = this.#byPrefix.get(prefix);
    if (table === undefined) {
      table = new Map();
      this.#byPrefix.set(prefix, table);
      this.#prefixes = [...this.#byPrefix.keys()].sort((a, b) => b - a);
    }
    return addHit(table, network, hit);
  }

  find(
    address: K,
    mask: (address: K, prefix: number) => K,
    bit: number,
    counter: ProbeCounter,
  ): StoredHit<unknown> | undefined {
    for (const prefix of this.#prefixes) {
      counter.probes += 1;
      const hit = firstHit(this.#byPrefix.get(prefix)?.get(mask(address, prefix)), bit);
      if (hit) return hit;
    }
    return undefined;
  }
}

function addHit<K>(table: Map<K, StoredHit<unknown>[]>, key: K, hit: StoredHit<unknown>): boolean {
  const hits = table.get(key);
  if (hits === undefined) {
    table.set(key, [hit]);
    return true;
  }
  // An entry repeated (in one list, or in two lists merged into one matcher) for types already covered adds
  // nothing; keeping only the first also keeps evidence pointing at its first occurrence.
  const covered = hits.reduce((mask, existing) => mask | existing.mask, 0);
  if ((hit.mask & ~covered) === 0) return false;
  hits.push(hit);
  return true;
}

function firstHit(hits: readonly StoredHit<unknown>[] | undefined, bit: number): StoredHit<unknown> | undefined {
  if (hits === undefined) return undefined;
  for (const hit of hits) if ((hit.mask & bit) !== 0) return hit;
  return undefined;
}

/**
 * Answers "does this normalised indicator match any entry?" in time that does not grow with the number of entries:
 * exact values and hostnames are hash-map probes (one per label of the host, walked from the full name down, never a
 * scan of the list), IP ranges are one map probe per prefix length present (at most 33 for IPv4, 129 for IPv6),
 * substrings are one pass of an Aho-Corasick automaton over the value. Regular expressions are the exception: each
 * one that applies is tried in turn, so lists of them should stay short (MISP's are); each try is one linear-time
 * pass of RE2's engine over the value (see {@link LinearRegex}).
 *
 * Entries from several lists can share one matcher: each carries a `tag` (its list), and a lookup stays as cheap as
 * with one list. See {@link IndicatorMatcher.match} for which entry is reported when several match.
 *
 * An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is also looked up as the IPv4 address it carries.
 *
 * A URL can name more than one host when parsers disagree on where its authority ends (`http://10.0.0.1\@evil.com/`
 * is 10.0.0.1 to a browser, evil.com to curl). `parseIndicator` refuses such URLs; for any other indicator,
 * {@link IndicatorMatcher.match} matches when any reading does (a blocklist flags it) and
 * {@link IndicatorMatcher.matchEveryReading} only when every reading does (a benign list clears it).
 *
 * @example
 * ```ts
 * const matcher = new IndicatorMatcher<string>();
 * matcher.add({ kind: 'hostname', hostname: 'evil.com', types: ['domain', 'url'], entry: 'evil.com', tag: 'mine' });
 * matcher.match(parseIndicator('https://a.b.evil.com/x')); // { entry: 'evil.com', kind: 'hostname', tag: 'mine' }
 * matcher.stats.probes; // hash-table probes made so far
 * ```
 */
export class IndicatorMatcher<T> {
  /** Work done by lookups so far; {@link IndicatorMatcher.resetStats} sets it back to zero. */
  readonly stats: MatcherStats = { probes: 0, lookups: 0 };
  readonly #exact = new Map<string, StoredHit<T>[]>();
  readonly #hostnames = new Map<string, StoredHit<T>[]>();
  readonly #ipv4 = new RangeTable<number>();
  readonly #ipv6 = new RangeTable<bigint>();
  readonly #substrings = new SubstringAutomaton<StoredHit<T>>();
  readonly #regexes: { readonly regex: LinearRegex; readonly hit: StoredHit<T> }[] = [];
  #size = 0;

  /** How many entries were added (duplicates not counted). */
  get size(): number {
    return this.#size;
  }

  /**
   * Adds one entry. Returns false when it adds nothing: it applies to no indicator type, or the same entry was
   * already added for the same types. Values must already be normalised (see `parseIndicator`), since lookups
   * compare them exactly.
   */
  add(rule: MatcherRule<T>): boolean {
    const mask = maskOf(rule.types);
    if (mask === 0) return false;
    const hit: StoredHit<T> = { entry: rule.entry, kind: rule.kind, tag: rule.tag, mask };
    let added: boolean;
    switch (rule.kind) {
      case 'exact':
        added = addHit(this.#exact, rule.value, hit);
        break;
      case 'hostname':
        added = addHit(this.#hostnames, rule.hostname, hit);
        break;
      case 'cidr':
        added =
          rule.range.family === 4
            ? this.#ipv4.add(rule.range.prefix, rule.range.network, hit)
            : this.#ipv6.add(rule.range.prefix, rule.range.network, hit);
        break;
      case 'substring':
        if (rule.text === '') return false;
        this.#substrings.add(rule.text, hit);
        added = true;
        break;
      case 'regex':
        // The type says so; this keeps a backtracking RegExp passed from JavaScript out of the lookup path.
        if (!(rule.regex instanceof LinearRegex)) {
          throw new TypeError(
            `regex entry ${JSON.stringify(rule.entry)}: expected a LinearRegex from compilePcreRegex`,
          );
        }
        this.#regexes.push({ regex: rule.regex, hit });
        added = true;
        break;
    }
    if (added) this.#size += 1;
    return added;
  }

  /** Adds every rule; returns how many added something (see {@link IndicatorMatcher.add}). */
  addAll(rules: Iterable<MatcherRule<T>>): number {
    let added = 0;
    for (const rule of rules) if (this.add(rule)) added += 1;
    return added;
  }

  /**
   * The most specific entry `indicator` matches, or undefined: an exact entry first, then the longest matching
   * prefix or host name, then a substring, then a regular expression. Between entries for the same value, range or
   * name, the one added first is reported.
   */
  match(indicator: Indicator): MatcherHit<T> | undefined {
    this.stats.lookups += 1;
    const bit = TYPE_BITS[indicator.type];
    const urlHost = this.#urlHostOf(indicator);
    let found = this.#primary(indicator, bit, urlHost);
    if (found === undefined && urlHost !== undefined) {
      for (const reading of otherHostReadings(indicator, urlHost)) {
        found = reading === undefined ? undefined : this.#host(reading, bit);
        if (found) break;
      }
    }
    return found === undefined ? undefined : { entry: found.entry, kind: found.kind, tag: found.tag };
  }

  /**
   * Like {@link IndicatorMatcher.match}, but for a URL that parsers read as naming different hosts, only when an
   * entry covers each of those hosts (a reading that is no valid host is covered by nothing). A list whose match
   * clears an indicator (a warninglist, an allowlist) asks this, so that it never vouches for a host it does not
   * cover. The entry reported is the one for the indicator's normalised value.
   */
  matchEveryReading(indicator: Indicator): MatcherHit<T> | undefined {
    this.stats.lookups += 1;
    const bit = TYPE_BITS[indicator.type];
    const urlHost = this.#urlHostOf(indicator);
    const found = this.#primary(indicator, bit, urlHost);
    if (found === undefined) return undefined;
    if (indicator.type === 'url') {
      for (const reading of otherHostReadings(indicator, urlHost)) {
        if (reading === undefined || this.#host(reading, bit) === undefined) return undefined;
      }
    }
    return { entry: found.entry, kind: found.kind, tag: found.tag };
  }

  /** Sets the probe and lookup counters back to zero. */
  resetStats(): void {
    this.stats.probes = 0;
    this.stats.lookups = 0;
  }

  /** The most specific entry the indicator's normalised value matches (see {@link IndicatorMatcher.match}). */
  #primary(indicator: Indicator, bit: number, urlHost: string | undefined): StoredHit<T> | undefined {
    return (
      this.#exactValue(indicator.value, bit) ??
      this.#byType(indicator, bit, urlHost) ??
      this.#substring(indicator.value, bit) ??
      this.#regex(indicator.value, bit)
    );
  }

  /** A URL's host as serialised, when the matcher has entries a host can match (else there is nothing to read). */
  #urlHostOf(indicator: Indicator): string | undefined {
    return indicator.type === 'url' && this.#hasHostEntries() ? serialisedUrlHost(indicator.value) : undefined;
  }

  #byType(indicator: Indicator, bit: number, urlHost: string | undefined): StoredHit<T> | undefined {
    switch (indicator.type) {
      case 'ipv4':
        return this.#ipv4Ranges(indicator.value, bit);
      case 'ipv6':
        return this.#ipv6Address(indicator.value, bit, TYPE_BITS.ipv4);
      case 'domain':
        return this.#hostname(indicator.value, bit);
      case 'email':
        return this.#hostname(indicator.value.slice(indicator.value.lastIndexOf('@') + 1), bit);
      case 'url':
        return urlHost === undefined ? undefined : this.#host(readSerialisedHost(urlHost), bit);
      default:
        return undefined;
    }
  }

  #exactValue(value: string, bit: number): StoredHit<T> | undefined {
    return this.#exact.size > 0 ? this.#probe(this.#exact, value, bit) : undefined;
  }

  #substring(value: string, bit: number): StoredHit<T> | undefined {
    if (this.#substrings.size === 0) return undefined;
    return this.#substrings.find(value, (candidate) => (candidate.mask & bit) !== 0, this.stats);
  }

  #probe(table: Map<string, StoredHit<T>[]>, key: string, bit: number): StoredHit<T> | undefined {
    this.stats.probes += 1;
    return firstHit(table.get(key), bit) as StoredHit<T> | undefined;
  }

  #ipv4Ranges(dottedQuad: string, bit: number): StoredHit<T> | undefined {
    if (this.#ipv4.size === 0) return undefined;
    return this.#ipv4.find(ipv4ToNumber(dottedQuad), maskIpv4, bit, this.stats) as StoredHit<T> | undefined;
  }

  /**
   * `mappedBit` is the type an IPv4-mapped address is looked up as: ipv4 for an ipv6 indicator (so entries that
   * apply to ipv4 match it), url for a URL's host (so only entries that apply to URLs do).
   */
  #ipv6Address(address: string, bit: number, mappedBit: number): StoredHit<T> | undefined {
    const value = ipv6ToBigInt(address);
    const own =
      this.#ipv6.size > 0 ? (this.#ipv6.find(value, maskIpv6, bit, this.stats) as StoredHit<T> | undefined) : undefined;
    if (own) return own;
    const ipv4 = unmapIpv4(value);
    if (ipv4 === undefined) return undefined;
    const dottedQuad = [ipv4 >>> 24, (ipv4 >>> 16) & 255, (ipv4 >>> 8) & 255, ipv4 & 255].join('.');
    const exact = this.#exactValue(dottedQuad, mappedBit);
    if (exact) return exact;
    if (this.#ipv4.size === 0) return undefined;
    return this.#ipv4.find(ipv4, maskIpv4, mappedBit, this.stats) as StoredHit<T> | undefined;
  }

  #hostname(host: string, bit: number): StoredHit<T> | undefined {
    if (this.#hostnames.size === 0) return undefined;
    // Walks from the full name to its last label: `a.b.evil.com`, `b.evil.com`, `evil.com`, `com`. MISP walks the
    // same suffixes (shortest first); longest first reports the most specific entry when several match.
    for (let start = 0; start !== -1; ) {
      const hit = this.#probe(this.#hostnames, start === 0 ? host : host.slice(start), bit);
      if (hit) return hit;
      const dot = host.indexOf('.', start);
      start = dot === -1 ? -1 : dot + 1;
    }
    return undefined;
  }

  #hasHostEntries(): boolean {
    return this.#hostnames.size > 0 || this.#ipv4.size > 0 || this.#ipv6.size > 0;
  }

  /** A URL's host, looked up with the URL's type bit (so only entries that apply to URLs match it). */
  #host(host: HostReading, bit: number): StoredHit<T> | undefined {
    switch (host.kind) {
      case 'ipv4':
        return this.#ipv4Ranges(host.value, bit);
      case 'ipv6':
        return this.#ipv6Address(host.value, bit, bit);
      case 'name':
        return this.#hostname(host.value, bit);
    }
  }

  #regex(value: string, bit: number): StoredHit<T> | undefined {
    for (const { regex, hit } of this.#regexes) {
      if ((hit.mask & bit) === 0) continue;
      this.stats.probes += 1;
      if (regex.test(value)) return hit;
    }
    return undefined;
  }
}
