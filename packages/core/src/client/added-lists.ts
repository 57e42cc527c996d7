import type { ResolvedConfig } from '../config/schema.js';
import { DEFAULT_LIST_WEIGHT } from '../correlation/strategies.js';
import { ValidationError } from '../errors/validation-error.js';
import type { FeedLookupResult } from '../feeds/feed.js';
import type { Indicator } from '../indicators/indicator.js';
import { LocalList } from '../lists/local-list.js';
import type { StixIndicatorListStatus } from '../lists/stix-indicator-list.js';
import type { Logger } from '../logging/logger.js';
import { shownInput } from '../records/shown-input.js';

/**
 * A list a client asks beside its feeds, answered from memory: a `LocalList`, a `StixIndicatorList`, or anything with
 * a `name` and a `lookup` that answers as a local list does (`status` is shown by `client.listStatus()` when present).
 */
export interface ListSource {
  /** Names the list: results carry `list:<name>`. */
  readonly name: string;
  /** The list's answer about an indicator: `ok` with a verdict when listed, `not_found` otherwise. Synchronous. */
  lookup(indicator: Indicator): FeedLookupResult;
  /** What the list holds, for `client.listStatus()`. */
  status?(): object;
}

/** An added list's line in `client.listStatus()`. */
export type AddedListStatus = {
  readonly kind: 'added';
  readonly name: string;
  /** Its weight in correlation. */
  readonly weight: number;
  /** A `LocalList`'s entries. */
  readonly entries?: number;
} & Partial<StixIndicatorListStatus>;

const LIST_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;

/**
 * The lists added to a client at run time with `client.addList`, asked after the configured ones; each change is seen
 * by the next lookup.
 */
export class AddedLists {
  readonly #config: ResolvedConfig;
  readonly #logger: Logger;
  readonly #lists = new Map<string, { list: ListSource; weight: number }>();
  /** Bumped at each change, so that a merged list of sources made before it is made again. */
  version = 0;

  constructor(deps: { config: ResolvedConfig; logger: Logger }) {
    this.#config = deps.config;
    this.#logger = deps.logger;
  }

  /** The lists, in the order added. */
  get lists(): ListSource[] {
    return [...this.#lists.values()].map(({ list }) => list);
  }

  /** See `ThreatClient.addList`. */
  add(list: ListSource, options: { weight?: number } = {}): void {
    const name = (list as { name?: unknown } | null)?.name;
    const issues: Array<{ path: string; message: string }> = [];
    if (typeof name !== 'string' || !LIST_NAME.test(name)) {
      issues.push({
        path: 'name',
        message: `expected letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit; got ${shownInput(name)}`,
      });
    } else if (this.#config.lists.some((configured) => configured.name === name) || this.#lists.has(name)) {
      issues.push({ path: 'name', message: `a list named "${name}" is already asked` });
    }
    if (typeof (list as { lookup?: unknown } | null)?.lookup !== 'function') {
      issues.push({ path: 'lookup', message: 'expected a lookup(indicator) function' });
    }
    const weight = options.weight ?? DEFAULT_LIST_WEIGHT;
    if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) {
      issues.push({ path: 'weight', message: `expected a number from 0 to 1, got ${shownInput(weight)}` });
    }
    if (issues.length > 0) throw new ValidationError('list', issues);
    this.#lists.set(name as string, { list, weight });
    this.version += 1;
    this.#logger.info({ list: name }, `list "${String(name)}" added`);
  }

  /** See `ThreatClient.removeList`. */
  remove(name: string): boolean {
    const removed = this.#lists.delete(name);
    if (removed) this.version += 1;
    return removed;
  }

  /** The weight of an added list's source id (`list:<name>`), or undefined for any other source. */
  weightOf(feed: string): number | undefined {
    return feed.startsWith('list:') ? this.#lists.get(feed.slice(5))?.weight : undefined;
  }

  /** Each added list's status. */
  status(): AddedListStatus[] {
    return [...this.#lists.values()].map(({ list, weight }) => ({
      kind: 'added',
      name: list.name,
      weight,
      ...(list instanceof LocalList ? { entries: list.entries } : {}),
      ...(typeof list.status === 'function' ? (list.status() as Partial<StixIndicatorListStatus>) : {}),
    }));
  }
}
