import type { FeedLookupResult } from '../feeds/feed.js';
import type { Indicator } from '../indicators/indicator.js';
import { readStixBundleEntries } from '../stix/read-stix-bundle.js';
import { parseStixTimestamp } from '../stix/stix-timestamp.js';
import type { MatcherRule } from './indicator-matcher.js';
import { ListLoadError } from './list-load-error.js';
import {
  LOCAL_LIST_MATCH_MODES,
  LocalList,
  type LocalListMatch,
  type LocalListMatchMode,
  type LocalListVerdict,
  stixEntryRule,
} from './local-list.js';

/**
 * Why a STIX object given to a {@link StixIndicatorList} added nothing (or only part of its pattern):
 * - `not-indicator`: another type of object (an identity, a relationship, …), passed over;
 * - `invalid`: not an object, or an indicator without a valid id (`indicator--<UUID>`) or `modified`/`created` time;
 * - `older-version`: the list holds this version of the indicator, or a newer one;
 * - `revoked`: the indicator is revoked (`revoked: true`), which also removes what an earlier version listed;
 * - `expired`: its `valid_until` has passed;
 * - `pattern-type`: a `pattern_type` other than `stix` (Snort, YARA, Sigma, …);
 * - `pattern`: the pattern, or a part of it, names no single indicator (AND, FOLLOWEDBY, a qualifier, an operator
 *   other than `=`, a property threatlib does not read, a value that is not a valid indicator) or is not valid;
 * - `limit`: the list holds {@link StixIndicatorListOptions.maxIndicators} indicators already.
 */
export type StixSkipReason =
  | 'not-indicator'
  | 'invalid'
  | 'older-version'
  | 'revoked'
  | 'expired'
  | 'pattern-type'
  | 'pattern'
  | 'limit';

/** What happened to one object given to {@link StixIndicatorList.upsert}. */
export interface StixObjectOutcome {
  /** The object's STIX id, when it has one. */
  readonly id?: string;
  /**
   * `added`: a new indicator; `updated`: a newer version replaced the one held; `removed`: a newer version revoked the
   * indicator (or expired it, or names nothing usable), so what it listed is gone; `unchanged`: the list holds this
   * version already; `skipped`: nothing was used (see `reason`).
   */
  readonly outcome: 'added' | 'updated' | 'removed' | 'unchanged' | 'skipped';
  /** Why it was skipped, or why part of its pattern was (an `added` or `updated` indicator can have both). */
  readonly reason?: StixSkipReason;
  /** The reason in words. */
  readonly detail?: string;
}

/** A STIX object, or a part of its pattern, that a {@link StixIndicatorList} did not use. */
export interface StixSkippedObject {
  /** Its STIX id (`objects[<n>]` when it had none). */
  readonly id: string;
  readonly reason: StixSkipReason;
  /** Why, in words (at most 300 characters). */
  readonly detail: string;
}

/** What a {@link StixIndicatorList} holds and what it did not use. */
export interface StixIndicatorListStatus {
  /** Indicators whose entries are listed now (revoked and expired ones not counted). */
  readonly indicators: number;
  /** Distinct entries matched against (an indicator whose pattern ORs several values gives several). */
  readonly entries: number;
  /** Objects (and parts of patterns) not used since the list was made, in all. */
  readonly skipped: number;
  /** The same, per reason. */
  readonly skippedByReason: Readonly<Partial<Record<StixSkipReason, number>>>;
  /** The latest few not used, newest last, with why. */
  readonly recentSkipped: readonly StixSkippedObject[];
}

/** Options of a {@link StixIndicatorList}. */
export interface StixIndicatorListOptions {
  /** Names the list in evidence and in its source id, `list:<name>`. */
  name: string;
  /** What being listed means (default `malicious`). */
  verdict?: LocalListVerdict;
  /** How entries match, as for a `stix` list file (default `host`). */
  match?: LocalListMatchMode;
  /** Where the indicators come from, for evidence and errors (`TAXII collection https://…`). */
  source?: string;
  /** The most indicators held (revoked and expired ones included, to remember their versions). Default 1,000,000. */
  maxIndicators?: number;
  /** The current time in epoch ms (default `Date.now`); `valid_from` and `valid_until` are compared with it. */
  now?: () => number;
}

/** The fields of an indicator a {@link StixIndicatorList} keeps to rebuild itself (`snapshot`, then `upsert`). */
export interface StixIndicatorSnapshot {
  type: 'indicator';
  id: string;
  modified: string;
  pattern?: string;
  pattern_type?: string;
  valid_from?: string;
  valid_until?: string;
  revoked?: boolean;
}

interface Held {
  readonly version: number;
  readonly snapshot: StixIndicatorSnapshot;
  readonly rules: readonly MatcherRule<undefined>[];
  /** Epoch ms from which, and until which, the rules apply. */
  readonly from: number;
  readonly until: number;
}

const DEFAULT_MAX_INDICATORS = 1_000_000;
const RECENT_SKIPS = 10;
const DETAIL_CHARS = 300;
const STIX_ID = /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A local list whose entries are the patterns of STIX 2.1 indicator objects given to it at run time: a TAXII
 * collection polled by a list source, objects POSTed to the server's writable TAXII collection, anything that hands
 * over STIX indicators. Add it to a client with `client.addList(list)`; it is then asked like any local list.
 *
 * Each indicator is kept at its newest version (by `modified`): an older or repeated version changes nothing, a newer
 * one replaces what the older listed, and a revoked one (`revoked: true`) removes it. An entry applies from the
 * indicator's `valid_from` until its `valid_until`. Patterns are read as a `stix` list file's are: the values of
 * `[object:path = 'value']` comparisons joined by OR, for the forms `toStixPattern` writes (addresses, domain names,
 * URLs, e-mail addresses, MD5, SHA-1 and SHA-256 file hashes). Everything not used is counted by reason in
 * `status()`, the latest few with their details.
 *
 * @example
 * ```ts
 * const inbox = new StixIndicatorList({ name: 'partner-feed' });
 * inbox.upsert(bundle.objects);
 * client.addList(inbox);
 * ```
 */
export class StixIndicatorList {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** The source id results carry: `list:<name>`. */
  readonly id: string;
  readonly verdict: LocalListVerdict;
  readonly matching: LocalListMatchMode;
  readonly source: string;
  readonly #max: number;
  readonly #now: () => number;
  readonly #held = new Map<string, Held>();
  readonly #skippedByReason: Partial<Record<StixSkipReason, number>> = {};
  readonly #recent: StixSkippedObject[] = [];
  #skipped = 0;
  #dirty = false;
  #list: LocalList;
  /** When an entry next starts or stops applying (epoch ms), so the matcher is rebuilt then. */
  #nextChange = Number.POSITIVE_INFINITY;

  /** @throws {@link ListLoadError} when an option is invalid. */
  constructor(options: StixIndicatorListOptions) {
    const { name, verdict = 'malicious', match = 'host', maxIndicators = DEFAULT_MAX_INDICATORS } = options;
    const source = options.source ?? `STIX indicators "${String(name)}"`;
    if (typeof name !== 'string' || name.trim() === '') throw new ListLoadError(source, 'a list needs a name');
    if (!['malicious', 'suspicious', 'clean'].includes(verdict)) {
      throw new ListLoadError(
        source,
        `unknown verdict ${JSON.stringify(verdict)} (expected malicious, suspicious or clean)`,
      );
    }
    if (!(LOCAL_LIST_MATCH_MODES as readonly string[]).includes(match)) {
      throw new ListLoadError(source, `unknown match ${JSON.stringify(match)} (expected host or exact)`);
    }
    if (!Number.isSafeInteger(maxIndicators) || maxIndicators < 1) {
      throw new ListLoadError(
        source,
        `maxIndicators must be a whole number of 1 or more, got ${String(maxIndicators)}`,
      );
    }
    this.name = name;
    this.id = `list:${name}`;
    this.verdict = verdict;
    this.matching = match;
    this.source = source;
    this.#max = maxIndicators;
    this.#now = options.now ?? Date.now;
    this.#list = this.#build();
  }

  /**
   * Takes in STIX objects (a bundle's or a TAXII envelope's `objects`): each indicator is added, replaces an older
   * version, or is removed when revoked; everything else is counted as skipped. Lookups see the change once all are
   * read; with `{commit: false}` only at the next {@link commit} (a poll taking in page after page builds the
   * matcher once, at its end). With `{count: false}` what is not used is not counted in `status()` (a list rebuilt
   * from its `snapshot()` counted it when it first came).
   *
   * @returns what happened to each object, in order.
   */
  upsert(objects: Iterable<unknown>, options: { commit?: boolean; count?: boolean } = {}): StixObjectOutcome[] {
    const outcomes: StixObjectOutcome[] = [];
    let index = 0;
    let changed = false;
    for (const object of objects) {
      const outcome = this.#take(object, index);
      index += 1;
      if (outcome.reason && options.count !== false) this.#skip(outcome.id ?? `objects[${index - 1}]`, outcome);
      if (outcome.outcome !== 'skipped' && outcome.outcome !== 'unchanged') changed = true;
      outcomes.push(outcome);
    }
    if (changed) this.#dirty = true;
    if (options.commit !== false) this.commit();
    return outcomes;
  }

  /** Makes what `upsert` and `remove` took in with `{commit: false}` visible to lookups. */
  commit(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    this.#list = this.#build();
  }

  /**
   * Forgets the indicator `id` (every version: a version given again later is taken in as new); returns true when
   * the list held it. Lookups see it at once, or with `{commit: false}` at the next {@link commit}.
   */
  remove(id: string, options: { commit?: boolean } = {}): boolean {
    const held = this.#held.delete(id);
    if (held) this.#dirty = true;
    if (options.commit !== false) this.commit();
    return held;
  }

  /** How many indicators the list holds, revoked and expired ones (kept for their versions) included. */
  get size(): number {
    return this.#held.size;
  }

  /** The fields of every indicator held (revoked and expired ones too), from which `upsert` rebuilds the list. */
  snapshot(): StixIndicatorSnapshot[] {
    return [...this.#held.values()].map((held) => held.snapshot);
  }

  /** What the list holds and what it did not use, by reason. */
  status(): StixIndicatorListStatus {
    let indicators = 0;
    for (const held of this.#held.values()) if (held.rules.length > 0) indicators += 1;
    return {
      indicators,
      entries: this.#current().entries,
      skipped: this.#skipped,
      skippedByReason: { ...this.#skippedByReason },
      recentSkipped: [...this.#recent],
    };
  }

  /** The entry `indicator` is listed under now, or undefined. */
  match(indicator: Indicator): LocalListMatch | undefined {
    return this.#current().match(indicator);
  }

  /** The list's answer, as a local list gives it (`ok` with the list's verdict, or `not_found`). */
  lookup(indicator: Indicator): FeedLookupResult {
    return this.#current().lookup(indicator);
  }

  #current(): LocalList {
    if (this.#now() >= this.#nextChange) this.#list = this.#build();
    return this.#list;
  }

  #take(object: unknown, index: number): StixObjectOutcome {
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      return { outcome: 'skipped', reason: 'invalid', detail: `objects[${index}] is not a STIX object` };
    }
    const fields = object as Record<string, unknown>;
    const id = typeof fields.id === 'string' ? fields.id.slice(0, 300) : undefined;
    const at = id === undefined ? {} : { id };
    if (fields.type !== 'indicator') {
      return {
        ...at,
        outcome: 'skipped',
        reason: typeof fields.type === 'string' ? 'not-indicator' : 'invalid',
        detail:
          typeof fields.type === 'string'
            ? `is a ${fields.type.slice(0, 60)}, not an indicator`
            : 'has no type: not a STIX object',
      };
    }
    if (id === undefined || !STIX_ID.test(id)) {
      return {
        ...at,
        outcome: 'skipped',
        reason: 'invalid',
        detail: 'is an indicator without a valid id (indicator--<UUID>)',
      };
    }
    const modified = typeof fields.modified === 'string' ? fields.modified : fields.created;
    const version = parseStixTimestamp(modified);
    if (version === undefined) {
      return { id, outcome: 'skipped', reason: 'invalid', detail: 'has no valid modified (or created) time' };
    }
    const known = this.#held.get(id);
    if (known !== undefined && known.version >= version) {
      return known.version === version
        ? { id, outcome: 'unchanged' }
        : {
            id,
            outcome: 'skipped',
            reason: 'older-version',
            detail: `is an older version (modified ${String(modified)}) of one the list holds (modified ${known.snapshot.modified})`,
          };
    }
    if (known === undefined && this.#held.size >= this.#max) {
      return { id, outcome: 'skipped', reason: 'limit', detail: `the list holds ${this.#max} indicators already` };
    }
    const snapshot = snapshotOf(fields, id, modified as string);
    const replaced = known !== undefined && known.rules.length > 0;
    const keep = (rules: MatcherRule<undefined>[], from: number, until: number) =>
      this.#held.set(id, { version, snapshot, rules, from, until });
    if (fields.revoked === true) {
      keep([], 0, 0);
      return { id, outcome: replaced ? 'removed' : 'skipped', reason: 'revoked', detail: 'is revoked' };
    }
    const until = timeOf(fields.valid_until, Number.POSITIVE_INFINITY);
    if (until <= this.#now()) {
      keep([], 0, 0);
      return {
        id,
        outcome: replaced ? 'removed' : 'skipped',
        reason: 'expired',
        detail: `expired (valid_until ${String(fields.valid_until)})`,
      };
    }
    // One object read as a bundle of one: the same checks (pattern_type, the pattern's parts, the object paths) and
    // the same reasons as a `stix` list file; valid_until is checked above against the list's own clock.
    const read = readStixBundleEntries({ type: 'bundle', objects: [{ ...fields, valid_until: undefined }] }, 0);
    const rules: MatcherRule<undefined>[] = [];
    const problems: string[] = [];
    let patternType = false;
    if (read.ok) {
      for (const skip of read.value.skipped) {
        if (skip.reason.startsWith('has pattern_type')) patternType = true;
        problems.push(skip.reason);
      }
      for (const entry of read.value.entries) {
        for (const value of entry.values) {
          const rule = stixEntryRule(value, this.matching);
          if (rule.ok) rules.push(rule.rule);
          else problems.push(rule.reason);
        }
      }
    }
    keep(rules, timeOf(fields.valid_from, Number.NEGATIVE_INFINITY), until);
    const reason: StixSkipReason | undefined =
      problems.length === 0 ? undefined : patternType ? 'pattern-type' : 'pattern';
    const detail = problems.join('; ');
    if (rules.length === 0) {
      return {
        id,
        outcome: replaced ? 'removed' : 'skipped',
        reason: reason ?? 'pattern',
        detail: detail || 'its pattern names no indicator',
      };
    }
    return { id, outcome: known === undefined ? 'added' : 'updated', ...(reason ? { reason, detail } : {}) };
  }

  #skip(id: string, outcome: StixObjectOutcome): void {
    const reason = outcome.reason ?? 'invalid';
    this.#skipped += 1;
    this.#skippedByReason[reason] = (this.#skippedByReason[reason] ?? 0) + 1;
    const detail = outcome.detail ?? reason;
    this.#recent.push({
      id,
      reason,
      detail: detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS)}…` : detail,
    });
    if (this.#recent.length > RECENT_SKIPS) this.#recent.shift();
  }

  /** The matcher of the entries that apply now, and when that next changes. */
  #build(): LocalList {
    const now = this.#now();
    let next = Number.POSITIVE_INFINITY;
    const rules: MatcherRule<undefined>[] = [];
    for (const held of this.#held.values()) {
      if (held.rules.length === 0) continue;
      if (held.from > now) {
        next = Math.min(next, held.from);
        continue;
      }
      if (held.until <= now) continue;
      next = Math.min(next, held.until);
      for (const rule of held.rules) rules.push(rule);
    }
    this.#nextChange = next;
    return new LocalList({
      name: this.name,
      verdict: this.verdict,
      format: 'stix',
      matching: this.matching,
      source: this.source,
      rules,
      skipped: 0,
      firstSkipped: [],
    });
  }
}

function timeOf(value: unknown, otherwise: number): number {
  const micros = parseStixTimestamp(value);
  return micros === undefined ? otherwise : micros / 1000;
}

function snapshotOf(fields: Record<string, unknown>, id: string, modified: string): StixIndicatorSnapshot {
  const snapshot: StixIndicatorSnapshot = { type: 'indicator', id, modified };
  if (typeof fields.pattern === 'string') snapshot.pattern = fields.pattern;
  if (typeof fields.pattern_type === 'string') snapshot.pattern_type = fields.pattern_type;
  if (typeof fields.valid_from === 'string') snapshot.valid_from = fields.valid_from;
  if (typeof fields.valid_until === 'string') snapshot.valid_until = fields.valid_until;
  if (fields.revoked === true) snapshot.revoked = true;
  return snapshot;
}
