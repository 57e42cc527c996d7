import type { MispFeedListConfig } from '../config/misp-feed-list-schema.js';
import type { FeedLookupResult } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import type { Indicator } from '../indicators/indicator.js';
import { IndicatorMatcher, type MatcherRule } from '../lists/indicator-matcher.js';
import { ListLoadError } from '../lists/list-load-error.js';
import { type LocalListMatchMode, type LocalListVerdict, withoutFragment } from '../lists/local-list.js';
import type { Logger } from '../logging/logger.js';
import { type Clock, systemClock } from '../scheduler/clock.js';
import { quoteForDisplay } from '../text/control-characters.js';
import { type MispFeedSkipCount, plainFeedText, SkipTally } from './feed-skips.js';
import { MispFeedReadError, type MispFeedTransport } from './misp-feed-transport.js';
import { type MispAttributeEvidence, type ReadMispEventResult, readMispEvent } from './read-misp-event.js';
import { type ManifestEvent, readMispManifest } from './read-misp-manifest.js';

/** The limits and switches of a MISP feed list (the `misp` options, resolved, without where the feed is). */
export type MispFeedLimits = Pick<
  MispFeedListConfig,
  'pollInterval' | 'toIdsOnly' | 'maxEvents' | 'maxEventBytes' | 'maxManifestBytes' | 'maxEntries'
>;

/** What a {@link MispFeedList} is made of. */
export interface MispFeedListParts {
  readonly name: string;
  readonly verdict: LocalListVerdict;
  readonly match: LocalListMatchMode;
  readonly transport: MispFeedTransport;
  readonly limits: MispFeedLimits;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Called by `close()`: releases what the list owns (its own HTTP client). */
  readonly release?: () => Promise<void>;
}

/** What one read of the feed did. */
export interface MispFeedRefresh {
  /** ISO 8601: when it started. */
  readonly at: string;
  readonly durationMs: number;
  /** False when the manifest had not changed (HTTP 304): nothing else was read. */
  readonly manifestChanged: boolean;
  /** Event files read (new events and events whose manifest timestamp moved). */
  readonly fetched: number;
  /** Event files that could not be read or were not events (the copy held before, if any, is kept). */
  readonly failed: number;
  /** Events no longer in the manifest, dropped. */
  readonly removed: number;
}

/** Where a MISP feed list stands: what it holds, what it skipped and why, how its last reads went. */
export interface MispFeedStatus {
  readonly name: string;
  /** The feed's directory or URL (never with credentials). */
  readonly source: string;
  /** Events held. */
  readonly events: number;
  /** Distinct entries the list matches with. */
  readonly entries: number;
  /** ms between reads (0: read once). */
  readonly pollInterval: number;
  readonly lastRefresh?: MispFeedRefresh;
  /** The last read that failed, when it failed after the last one that worked: the list kept its entries. */
  readonly lastError?: { readonly at: string; readonly message: string };
  /** Events of the manifest not held, by reason: not a UUID, over maxEvents, too large, not an event, … */
  readonly skippedEvents: MispFeedSkipCount;
  /** Attributes of the held events that are not entries, by reason: to_ids false, deleted, type, invalid, … */
  readonly skippedAttributes: MispFeedSkipCount;
}

/** The evidence of one entry: the first attributes that gave it, and how many more did. */
interface EntryEvidence {
  readonly items: MispAttributeEvidence[];
  more: number;
}

interface HeldEvent {
  readonly uuid: string;
  readonly timestamp: number;
  readonly event: ReadMispEventResult;
}

const SCORES: Readonly<Record<LocalListVerdict, number>> = { malicious: 1, suspicious: 0.5, clean: 0 };
/** Event files read at once. */
const FETCH_CONCURRENCY = 4;
/** Attributes an entry's evidence keeps; the others are counted. */
const EVIDENCE_PER_ENTRY = 10;
/** Attributes an answer describes in its evidence. */
const EVIDENCE_IN_ANSWER = 3;
/**
 * Tag namespaces that say how an event may be shared or how it was made, not what the threat is: every event of a
 * feed may carry `tlp:white` or `type:OSINT`, so as answer tags they would tie everything a feed lists together
 * (campaigns are formed from shared tags). They stay in the evidence text.
 */
const HANDLING_TAG =
  /^(?:tlp|pap|type|osint|workflow|admiralty-scale|estimative-language|source-reliability|information-credibility)[:=]/i;
const MALPEDIA_TAG = /^misp-galaxy:malpedia="([^"]{1,100})"$/;

/**
 * A MISP feed read as a local list: every attribute of its events (and of their objects) of a type threatlib looks
 * up becomes an entry, answered in memory as `list:<name>` with the list's verdict, and with evidence naming the
 * event (UUID, info, organisation, date, tags) and the attribute (type, category, object, comment). The feed is read
 * again every `pollInterval`: the manifest (with `If-None-Match` over HTTP), then only the events whose manifest
 * timestamp is newer than the copy held; events gone from the manifest are dropped. A read that fails keeps what the
 * list holds. {@link status} says what was skipped and why.
 *
 * Made by {@link loadMispFeedList}, or from `lists: [{name, misp: {...}}]` by the client.
 */
export class MispFeedList {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** The source id results carry: `list:<name>`. */
  readonly id: string;
  /** The verdict for a listed indicator. */
  readonly verdict: LocalListVerdict;
  /** How the entries match, as for a local list (default `host`). */
  readonly matching: LocalListMatchMode;
  /** The feed's directory or URL, without credentials. */
  readonly source: string;
  readonly #transport: MispFeedTransport;
  readonly #limits: MispFeedLimits;
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #release: (() => Promise<void>) | undefined;
  readonly #quotedName: string;
  readonly #abort = new AbortController();
  #matcher = new IndicatorMatcher<EntryEvidence>();
  #events = new Map<string, HeldEvent>();
  #entries = 0;
  #etag: string | undefined;
  #eventSkips = new SkipTally();
  #entrySkips = new SkipTally();
  #lastRefresh: MispFeedRefresh | undefined;
  #lastError: { at: string; message: string } | undefined;
  #refreshing: Promise<MispFeedRefresh> | undefined;
  #timer: unknown;
  #closed = false;

  constructor(parts: MispFeedListParts) {
    this.name = parts.name;
    this.id = `list:${parts.name}`;
    this.#quotedName = JSON.stringify(parts.name);
    this.verdict = parts.verdict;
    this.matching = parts.match;
    this.source = parts.transport.location;
    this.#transport = parts.transport;
    this.#limits = parts.limits;
    this.#clock = parts.clock ?? systemClock;
    this.#logger = parts.logger;
    this.#release = parts.release;
  }

  /** Distinct entries the list matches with. */
  get entries(): number {
    return this.#entries;
  }

  /** Where the list stands: what it holds, what it skipped (by reason), its last read and last failure. */
  status(): MispFeedStatus {
    const attributes = new SkipTally();
    for (const held of this.#events.values()) attributes.merge(held.event.skips);
    attributes.merge(this.#entrySkips);
    return {
      name: this.name,
      source: this.source,
      events: this.#events.size,
      entries: this.#entries,
      pollInterval: this.#limits.pollInterval,
      ...(this.#lastRefresh ? { lastRefresh: this.#lastRefresh } : {}),
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      skippedEvents: this.#eventSkips.toJSON(),
      skippedAttributes: attributes.toJSON(),
    };
  }

  /**
   * The list's answer in the shape every feed gives: listed -> `ok` with the list's verdict, evidence describing
   * the first few attributes that list it, tags (`misp-feed`, and the events' and attributes' tags that describe the
   * threat), categories, malware families (from Malpedia galaxy tags), references (the events, as `urn:uuid:…`, and
   * their `link` attributes), first and last seen; not listed -> `not_found`.
   */
  lookup(indicator: Indicator): FeedLookupResult {
    const looked = this.matching === 'host' ? withoutFragment(indicator) : indicator;
    const hit = this.verdict === 'clean' ? this.#matcher.matchEveryReading(looked) : this.#matcher.match(looked);
    if (hit === undefined) {
      return answer({ status: 'not_found', verdict: 'unknown', evidence: [`not in MISP feed ${this.#quotedName}`] });
    }
    const { items, more } = hit.tag;
    const via = hit.entry === indicator.value ? '' : ` (${plainFeedText(hit.entry, 200)})`;
    const evidence = items
      .slice(0, EVIDENCE_IN_ANSWER)
      .map((item) => `listed in MISP feed ${this.#quotedName}${via}: ${describe(item)}`);
    const others = items.length - EVIDENCE_IN_ANSWER + more;
    if (others > 0)
      evidence.push(`and ${others} more attribute${others === 1 ? '' : 's'} of MISP feed ${this.#quotedName}`);
    const tags = ['misp-feed'];
    const families: string[] = [];
    for (const item of items) {
      for (const tag of [...item.event.tags, ...item.tags]) {
        const family = MALPEDIA_TAG.exec(tag)?.[1];
        if (family !== undefined) families.push(family);
        else if (!HANDLING_TAG.test(tag)) tags.push(tag);
      }
    }
    const firstSeen = items
      .map((item) => item.firstSeen)
      .filter(isString)
      .sort()[0];
    const lastSeen = items
      .map((item) => item.lastSeen)
      .filter(isString)
      .sort()
      .at(-1);
    return answer({
      status: 'ok',
      verdict: this.verdict,
      score: SCORES[this.verdict],
      evidence,
      tags,
      categories: items.map((item) => item.category).filter(isString),
      malwareFamilies: families,
      references: items.flatMap((item) => item.event.references),
      firstSeen,
      lastSeen,
    });
  }

  /**
   * Reads the feed now: the manifest, then the events that are new or changed. One read at a time: a call during a
   * read gets that read's result.
   *
   * @throws {@link ListLoadError} when the manifest cannot be read or is not a manifest (the list keeps what it has).
   */
  refresh(): Promise<MispFeedRefresh> {
    if (this.#refreshing) return this.#refreshing;
    const running = this.#refresh().then(
      (report) => {
        this.#lastRefresh = report;
        this.#lastError = undefined;
        this.#logRefresh(report);
        return report;
      },
      (error: unknown) => {
        this.#lastError = { at: new Date(this.#clock.now()).toISOString(), message: (error as Error).message };
        throw error;
      },
    );
    this.#refreshing = running;
    const done = () => {
      if (this.#refreshing === running) this.#refreshing = undefined;
    };
    running.then(done, done);
    return running;
  }

  /** Reads the feed again every `pollInterval` (nothing when it is 0), until {@link close}. The timer is unref'd. */
  start(): void {
    if (this.#closed || this.#timer !== undefined || this.#limits.pollInterval === 0) return;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.refresh()
          .catch((error: unknown) =>
            this.#logger?.error(
              { list: this.name, err: error },
              `MISP feed ${this.#quotedName} could not be read again; the list keeps the ${this.#entries} entries it has`,
            ),
          )
          .finally(() => this.start());
      },
      this.#limits.pollInterval,
      { unref: true },
    );
  }

  /** Stops polling, abandons a read under way, and releases the list's own HTTP connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort.abort(new Error(`MISP feed list ${this.#quotedName} closed`));
    await this.#refreshing?.catch(() => undefined);
    await this.#release?.();
  }

  /** Logs what a read did, and what it skipped. */
  #logRefresh(report: MispFeedRefresh): void {
    if (!report.manifestChanged) return;
    const status = this.status();
    this.#logger?.info(
      { list: this.name, events: status.events, entries: status.entries, fetched: report.fetched },
      `MISP feed ${this.#quotedName} read: ${status.events} events, ${status.entries} entries (${report.fetched} event files read)`,
    );
    const { skippedEvents, skippedAttributes } = status;
    if (skippedEvents.count > 0 || skippedAttributes.count > 0 || report.failed > 0) {
      this.#logger?.warn(
        { list: this.name, skippedEvents, skippedAttributes, failed: report.failed },
        `MISP feed ${this.#quotedName}: ${skippedEvents.count} events and ${skippedAttributes.count} attributes skipped`,
      );
    }
  }

  async #refresh(): Promise<MispFeedRefresh> {
    const started = this.#clock.now();
    const signal = this.#abort.signal;
    const limits = this.#limits;
    let manifest: Awaited<ReturnType<MispFeedTransport['read']>>;
    try {
      manifest = await this.#transport.read('manifest.json', {
        maxBytes: limits.maxManifestBytes,
        signal,
        ...(this.#etag === undefined ? {} : { etag: this.#etag }),
      });
    } catch (error) {
      throw new ListLoadError(`MISP feed ${this.#quotedName} at ${this.source}`, (error as Error).message, {
        cause: error,
      });
    }
    const report = (fields: Omit<MispFeedRefresh, 'at' | 'durationMs'>): MispFeedRefresh => ({
      at: new Date(started).toISOString(),
      durationMs: Math.max(0, this.#clock.now() - started),
      ...fields,
    });
    if (manifest === 'unchanged') return report({ manifestChanged: false, fetched: 0, failed: 0, removed: 0 });

    const eventSkips = new SkipTally();
    const read = readMispManifest(manifest.text, limits.maxEvents, eventSkips);
    if ('problem' in read) throw new ListLoadError(`MISP feed ${this.#quotedName} at ${this.source}`, read.problem);

    const next = new Map<string, HeldEvent>();
    const wanted: ManifestEvent[] = [];
    for (const event of read.events) {
      const held = this.#events.get(event.id);
      if (held !== undefined && held.timestamp >= event.timestamp) next.set(event.id, held);
      else wanted.push(event);
    }
    let fetched = 0;
    let failed = 0;
    await eachLimited(wanted, FETCH_CONCURRENCY, async (event) => {
      const held = this.#events.get(event.id);
      const outcome = await this.#readEvent(event);
      signal.throwIfAborted();
      if ('reason' in outcome) {
        failed += 1;
        eventSkips.add(outcome.reason, { event: event.uuid }, outcome.detail);
        if (held !== undefined) next.set(event.id, held);
        return;
      }
      fetched += 1;
      next.set(event.id, { uuid: event.uuid, timestamp: event.timestamp, event: outcome });
    });
    let removed = 0;
    for (const id of this.#events.keys()) if (!next.has(id)) removed += 1;
    // Newest first, so that maxEntries keeps the most recent attributes.
    const ordered = new Map<string, HeldEvent>();
    for (const event of read.events) {
      const held = next.get(event.id);
      if (held !== undefined) ordered.set(event.id, held);
    }
    if (fetched > 0 || removed > 0 || this.#lastRefresh === undefined) this.#rebuild(ordered);
    this.#events = ordered;
    this.#eventSkips = eventSkips;
    // A failed event is read again next time only if the manifest is: keep no validator that would skip it.
    this.#etag = failed === 0 ? manifest.etag : undefined;
    return report({ manifestChanged: true, fetched, failed, removed });
  }

  async #readEvent(event: ManifestEvent): Promise<ReadMispEventResult | { reason: string; detail: string }> {
    let text: string;
    try {
      const file = await this.#transport.read(`${event.uuid}.json`, {
        maxBytes: this.#limits.maxEventBytes,
        signal: this.#abort.signal,
      });
      // Event files are asked without a validator, so never `unchanged`.
      text = file === 'unchanged' ? '' : file.text;
    } catch (error) {
      this.#abort.signal.throwIfAborted();
      const failure = error instanceof MispFeedReadError ? error.failure : 'unreadable';
      const reason =
        failure === 'missing'
          ? 'event file missing'
          : failure === 'too large'
            ? 'event file larger than maxEventBytes'
            : 'event file unreadable';
      return { reason, detail: (error as Error).message };
    }
    const result = readMispEvent(text, event.uuid, {
      toIdsOnly: this.#limits.toIdsOnly,
      match: this.matching,
    });
    return 'problem' in result ? { reason: 'not a MISP event', detail: result.problem } : result;
  }

  /** Builds the matcher from the events held, newest first, at most `maxEntries` distinct entries. */
  #rebuild(events: ReadonlyMap<string, HeldEvent>): void {
    const matcher = new IndicatorMatcher<EntryEvidence>();
    const byKey = new Map<string, EntryEvidence>();
    const skips = new SkipTally();
    for (const { event } of events.values()) {
      for (const rule of event.rules) {
        const key = ruleKey(rule);
        const known = byKey.get(key);
        if (known !== undefined) {
          if (known.items.length < EVIDENCE_PER_ENTRY) known.items.push(rule.tag);
          else known.more += 1;
          continue;
        }
        if (byKey.size >= this.#limits.maxEntries) {
          skips.add(
            'over maxEntries',
            { event: rule.tag.event.uuid, attribute: plainFeedText(rule.entry, 100) },
            `the list holds ${this.#limits.maxEntries} entries`,
          );
          continue;
        }
        const evidence: EntryEvidence = { items: [rule.tag], more: 0 };
        byKey.set(key, evidence);
        matcher.add({ ...rule, tag: evidence } as MatcherRule<EntryEvidence>);
      }
    }
    this.#matcher = matcher;
    this.#entries = byKey.size;
    this.#entrySkips = skips;
  }
}

/** One attribute of evidence, in words: the event, then the attribute. */
function describe(item: MispAttributeEvidence): string {
  const { event } = item;
  const by = event.org === undefined ? '' : ` by ${plainFeedText(event.org)}`;
  const on = event.date === undefined ? '' : ` on ${event.date}`;
  const eventTags =
    event.tags.length === 0
      ? ''
      : ` [${event.tags
          .slice(0, 5)
          .map((t) => plainFeedText(t))
          .join(', ')}]`;
  const category = item.category === undefined ? '' : ` in ${plainFeedText(item.category)}`;
  const object = item.object === undefined ? '' : ` of object ${plainFeedText(item.object)}`;
  const tags =
    item.tags.length === 0
      ? ''
      : ` [${item.tags
          .slice(0, 5)
          .map((t) => plainFeedText(t))
          .join(', ')}]`;
  const comment = item.comment === undefined ? '' : `, comment ${quoteForDisplay(item.comment, 200)}`;
  const correlation = item.correlates ? '' : ' (correlation disabled in MISP)';
  return (
    `event ${event.uuid} ${quoteForDisplay(event.info, 200)}${by}${on}${eventTags}: ` +
    `${plainFeedText(item.type, 60)} attribute${category}${object}${tags}${comment}${correlation}`
  );
}

/** Entries that match the same things are one entry, whichever attributes gave them. */
function ruleKey(rule: MatcherRule<unknown>): string {
  return `${rule.kind}\0${rule.entry}\0${rule.types.join(',')}`;
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}

/** Runs `work` over `items`, at most `limit` at once; the first failure stops it. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
