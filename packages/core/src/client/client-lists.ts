import type { ResolvedConfig } from '../config/schema.js';
import type { HttpClient } from '../http/http-client.js';
import { TaxiiListSource } from '../lists/taxii/taxii-list-source.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { prepareLists } from '../scout/prepare-lists.js';
import type { LocalSource, Prefilter } from '../scout/scout-engine.js';
import type { AddedLists } from './added-lists.js';
import { type ListStatus, listStatus } from './list-status.js';

/** The lists a lookup asks, with the prefilter that spares them the indicators none of them holds. */
type PreparedLists = { prefilter: Prefilter; lists: LocalSource[] };

/** What a client's lists need of the client. */
interface ClientListsDeps {
  config: ResolvedConfig;
  /** The `lists` category of the client's logger. */
  logger: Logger;
  http: () => HttpClient;
  clock: Clock;
  /** The lists added at run time (`client.addList`). */
  added: AddedLists;
  /** True while the client's `start()` runs: it readies the TAXII lists itself then. */
  starting: () => boolean;
}

/**
 * A client's lists: the configured ones, loaded once on first use (a failed load is tried again on the next), and
 * the ones added at run time, asked after them.
 */
export class ClientLists {
  readonly #deps: ClientListsDeps;
  #prepared: Promise<PreparedLists> | undefined;
  /** The configured lists and the added ones, for lookups: made again when either changes. */
  #forScout: { from: unknown; version: number; lists: Promise<PreparedLists> } | undefined;

  constructor(deps: ClientListsDeps) {
    this.#deps = deps;
  }

  /** The configured lists, loaded on the first call. */
  prepare(): Promise<PreparedLists> {
    if (!this.#prepared) {
      const { config, logger, http, clock, starting } = this.#deps;
      const loading = prepareLists(config, logger, { http, clock }).then(async (prepared) => {
        // A client used without start() loads its TAXII lists' state from their files and polls them once, now;
        // start() does it itself once the integrations that may keep that state run.
        if (!starting()) {
          await Promise.all(
            prepared.lists.filter((list) => list instanceof TaxiiListSource).map((list) => list.ready()),
          );
        }
        return prepared;
      });
      this.#prepared = loading;
      // A failed load is retried on the next call instead of being remembered forever.
      loading.catch(() => {
        if (this.#prepared === loading) this.#prepared = undefined;
      });
      return loading;
    }
    return this.#prepared;
  }

  /** The configured lists (loaded once) and the added ones, as lookups ask them. */
  forScout(): Promise<PreparedLists> {
    const from = this.prepare();
    const added = this.#deps.added;
    const version = added.version;
    if (this.#forScout?.from !== from || this.#forScout.version !== version) {
      this.#forScout = {
        from,
        version,
        lists: from.then(({ prefilter, lists }) => ({ prefilter, lists: [...lists, ...added.lists] })),
      };
    }
    return this.#forScout.lists;
  }

  /** The TAXII lists among the configured ones, once loaded (none when loading failed). */
  async taxiiLists(): Promise<TaxiiListSource[]> {
    const prepared = await this.#prepared?.catch(() => undefined);
    return (prepared?.lists ?? []).filter((list): list is TaxiiListSource => list instanceof TaxiiListSource);
  }

  /** Where each list stands: the configured ones (loaded first), then the added ones. */
  async status(): Promise<ListStatus[]> {
    return [...listStatus((await this.prepare()).lists), ...this.#deps.added.status()];
  }

  /** Closes the configured lists (those that poll stop); the next use loads them again. */
  async close(): Promise<void> {
    const prepared = this.#prepared;
    this.#prepared = undefined;
    const lists = await prepared?.then(
      (loaded) => loaded.lists,
      () => [],
    );
    await Promise.all((lists ?? []).map((list) => list.close?.()));
  }
}
