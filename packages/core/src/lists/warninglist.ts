import type { Indicator, IndicatorType } from '../indicators/indicator.js';
import { IndicatorMatcher, type MatcherHit, type MatcherRule } from './indicator-matcher.js';

/** The kinds of MISP warninglist, from the `type` field of MISP/misp-warninglists `schema.json`. */
export const MISP_LIST_TYPES = ['string', 'substring', 'hostname', 'cidr', 'regex'] as const;

/** One of {@link MISP_LIST_TYPES}. */
export type MispListType = (typeof MISP_LIST_TYPES)[number];

/** What every entry of a warninglist carries into a matcher: its list, and the entry's comment when it has one. */
export interface WarninglistTag {
  /** The warninglist's name. */
  readonly list: string;
  /** Why the entry is on the list (MISP lists may map entries to comments; built-in entries name their RFC). */
  readonly comment?: string;
}

/** Why an indicator is answered `clean` without asking any feed. */
export interface WarninglistMatch {
  /** The name of the warninglist that matched. */
  readonly list: string;
  /** The entry that matched, as listed (normalised): `8.8.8.8/32`, `google.com`. */
  readonly entry: string;
  /** Evidence for the result: `on warninglist "List of known IPv4 public DNS resolvers" (8.8.8.8/32)`. */
  readonly reason: string;
}

/** A list entry that was not used, and why. */
export interface SkippedEntry {
  /** 1-based line of the file; for a MISP warninglist, the entry's 1-based position in its `list`. */
  readonly line: number;
  /** The entry as written (at most 100 characters). */
  readonly entry: string;
  /** Why it was not used. */
  readonly reason: string;
}

/** Everything a {@link Warninglist} is made of; {@link loadMispWarninglist} builds one from a MISP file. */
export interface WarninglistDefinition {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** What the list holds, from its `description`. */
  readonly description: string;
  /** The list's `version` (MISP lists use a date or a counter), when it has one. */
  readonly version: number | undefined;
  /** How entries are compared: `string` exactly, `hostname` with names under them, `cidr` as ranges, … */
  readonly type: MispListType;
  /** The MISP attribute types the list was written for. */
  readonly matchingAttributes: readonly string[];
  /** The indicator types those attribute types cover; the list never matches other types. */
  readonly types: readonly IndicatorType[];
  /** Where the list came from: a file path, or `built-in`. */
  readonly source: string;
  /** The usable entries, ready for an {@link IndicatorMatcher}. */
  readonly rules: readonly MatcherRule<WarninglistTag>[];
  /** How many entries could not be used (not indicators threatlib knows, or of types the list does not cover). */
  readonly ignored: number;
  /** The first few of them, so that nothing is dropped without a trace. */
  readonly firstIgnored: readonly SkippedEntry[];
}

/** How many skipped entries a load report spells out. */
export const MAX_REPORTED_SKIPS = 5;

/**
 * A benign list (MISP warninglist format): an indicator on it is answered `clean`, with evidence naming the list,
 * and no feed is asked. Build one with {@link loadMispWarninglist} or take the built-ins from
 * {@link builtinWarninglists}; combine several in a {@link WarninglistSet}.
 *
 * @example
 * ```ts
 * const dns = await loadMispWarninglist('warninglists/public-dns-v4.json');
 * dns.match(parseIndicator('8.8.8.8'))?.reason; // 'on warninglist "List of known IPv4 public DNS resolvers" (8.8.8.8/32)'
 * ```
 */
export class Warninglist implements WarninglistDefinition {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** What the list holds. */
  readonly description: string;
  /** The list's version, when it has one. */
  readonly version: number | undefined;
  /** How entries are compared. */
  readonly type: MispListType;
  /** The MISP attribute types the list was written for. */
  readonly matchingAttributes: readonly string[];
  /** The indicator types the list applies to. */
  readonly types: readonly IndicatorType[];
  /** Where the list came from: a file path, or `built-in`. */
  readonly source: string;
  /** The usable entries. */
  readonly rules: readonly MatcherRule<WarninglistTag>[];
  /** How many entries could not be used. */
  readonly ignored: number;
  /** The first few entries that could not be used, with why. */
  readonly firstIgnored: readonly SkippedEntry[];
  // Built on first use: a list that only ever feeds a WarninglistSet needs no matcher of its own.
  #matcher: IndicatorMatcher<WarninglistTag> | undefined;

  constructor(definition: WarninglistDefinition) {
    this.name = definition.name;
    this.description = definition.description;
    this.version = definition.version;
    this.type = definition.type;
    this.matchingAttributes = definition.matchingAttributes;
    this.types = definition.types;
    this.source = definition.source;
    this.rules = definition.rules;
    this.ignored = definition.ignored;
    this.firstIgnored = definition.firstIgnored;
  }

  /** How many entries the list matches with. */
  get size(): number {
    return this.rules.length;
  }

  /**
   * Whether `indicator` is on this list, and which entry says so. A URL that parsers read as naming different hosts
   * is on the list only when the list covers every one of them.
   */
  match(indicator: Indicator): WarninglistMatch | undefined {
    if (this.#matcher === undefined) {
      this.#matcher = new IndicatorMatcher();
      this.#matcher.addAll(this.rules);
    }
    const hit = this.#matcher.matchEveryReading(indicator);
    return hit === undefined ? undefined : describeWarninglistHit(hit);
  }
}

/** Turns a matcher hit on a warninglist entry into the match and its evidence sentence. */
export function describeWarninglistHit(hit: MatcherHit<WarninglistTag>): WarninglistMatch {
  const { list, comment } = hit.tag;
  const detail = comment ? `${hit.entry}: ${comment}` : hit.entry;
  return { list, entry: hit.entry, reason: `on warninglist ${JSON.stringify(list)} (${detail})` };
}
