import type { Indicator } from '../indicators/indicator.js';
import { builtinWarninglists } from './builtin-warninglists.js';
import { IndicatorMatcher, type MatcherStats } from './indicator-matcher.js';
import { ListLoadError } from './list-load-error.js';
import { loadMispWarninglist } from './misp-warninglist.js';
import { describeWarninglistHit, type Warninglist, type WarninglistMatch, type WarninglistTag } from './warninglist.js';

/** Which warninglists {@link WarninglistSet.fromConfig} loads. */
export interface WarninglistConfig {
  /** Include {@link builtinWarninglists} (special-use IP ranges, empty-file hashes). Default true. */
  builtin?: boolean;
  /** MISP warninglist files to load, after the built-ins, in this order. */
  files?: readonly (string | URL)[];
}

/**
 * The warninglists checked before any feed is asked: an indicator on one is answered `clean` with the match's
 * `reason` as evidence. All lists share one {@link IndicatorMatcher}, so a lookup costs the same with one list or a
 * hundred. When several lists match, the most specific match is reported (an exact entry before a range or a parent
 * domain, a longer prefix before a shorter one), and between equally specific entries the list given first.
 *
 * @example
 * ```ts
 * const warninglists = await WarninglistSet.fromConfig({ files: ['warninglists/public-dns-v4.json'] });
 * warninglists.match(parseIndicator('8.8.8.8'));
 * // { list: 'List of known IPv4 public DNS resolvers', entry: '8.8.8.8/32', reason: 'on warninglist "…" (8.8.8.8/32)' }
 * ```
 */
export class WarninglistSet {
  /** The lists, in the order they are consulted. */
  readonly lists: readonly Warninglist[];
  readonly #matcher = new IndicatorMatcher<WarninglistTag>();

  /**
   * @throws {@link ListLoadError} when two lists have the same name, since evidence names lists and could not say
   * which one matched.
   */
  constructor(lists: Iterable<Warninglist>) {
    this.lists = [...lists];
    const sources = new Map<string, string>();
    for (const list of this.lists) {
      const earlier = sources.get(list.name);
      if (earlier !== undefined) {
        throw new ListLoadError(
          list.source,
          `the warninglist name ${JSON.stringify(list.name)} is already used by the list from ${earlier}`,
        );
      }
      sources.set(list.name, list.source);
      this.#matcher.addAll(list.rules);
    }
  }

  /**
   * Loads the built-in lists (unless `builtin` is false) followed by each MISP warninglist file in `files`.
   *
   * @throws {@link ListLoadError} naming the first file that cannot be loaded.
   */
  static async fromConfig(config: WarninglistConfig = {}): Promise<WarninglistSet> {
    const { builtin = true, files = [] } = config;
    const loaded = await Promise.all(files.map((file) => loadMispWarninglist(file)));
    return new WarninglistSet([...(builtin ? builtinWarninglists() : []), ...loaded]);
  }

  /** How many lists the set holds. */
  get size(): number {
    return this.lists.length;
  }

  /** The lists' names, in the order they are consulted. */
  get names(): string[] {
    return this.lists.map((list) => list.name);
  }

  /** Probe and lookup counters of the shared matcher. */
  get stats(): Readonly<MatcherStats> {
    return this.#matcher.stats;
  }

  /**
   * The first list `indicator` is on, with the entry and the evidence sentence; undefined when it is on none. A URL
   * that parsers read as naming different hosts is on a list only when the lists cover every one of them.
   */
  match(indicator: Indicator): WarninglistMatch | undefined {
    const hit = this.#matcher.matchEveryReading(indicator);
    return hit === undefined ? undefined : describeWarninglistHit(hit);
  }
}
