import { toBase64 } from '../../bytes/base64.js';
import { utf8Bytes } from '../../bytes/host-bytes.js';
import type { FeedLookupResult } from '../../feeds/feed.js';
import { createHttpClient, type HttpClient } from '../../http/http-client.js';
import { HttpError } from '../../http/http-error.js';
import type { Indicator } from '../../indicators/indicator.js';
import type { Logger } from '../../logging/logger.js';
import { type Clock, systemClock } from '../../scheduler/clock.js';
import { parseStixTimestamp } from '../../stix/stix-timestamp.js';
import type { LocalListMatchMode, LocalListVerdict } from '../local-list.js';
import { StixIndicatorList, type StixIndicatorListStatus, type StixIndicatorSnapshot } from '../stix-indicator-list.js';
import { defaultStateFile, FileListStateStore, type ListState, type ListStateStore } from './list-state-store.js';
import { readTaxiiPage, type TaxiiPageQuery } from './taxii-page.js';

/** The `taxii` options of a list (`lists[].taxii`), resolved. */
interface TaxiiListOptions {
  /** The API root's URL. */
  url: string;
  /** The collection's id. */
  collection: string;
  auth?: { type: 'bearer'; token: string } | { type: 'basic'; username: string; password: string };
  /** Time between polls, in ms. */
  pollInterval: number;
  /** Time one request may take, in ms. */
  timeout: number;
  /** Objects asked for per page. */
  pageSize: number;
  /** Where the state is kept, when no integration keeps it. */
  stateFile?: string;
}

/** How a TAXII list's polls are going. */
export interface TaxiiPollStatus {
  /** The collection's objects URL. */
  readonly url: string;
  /** `never` until the first poll ends; then `ok` or `error` (the last poll's outcome); `stopped` after stop(). */
  readonly state: 'never' | 'ok' | 'error' | 'stopped';
  /** Where the next poll starts: the `added_after` it sends (absent: from the start). */
  readonly addedAfter?: string;
  readonly lastPollAt?: string;
  readonly lastSuccessAt?: string;
  /** Why the last poll failed (or was cut short), in words; never a credential. */
  readonly lastError?: string;
  /** Polls ended (whatever their outcome). */
  readonly polls: number;
  readonly pages: number;
  /** Objects read, indicators or not. */
  readonly objects: number;
  /** Where the position and the indicators are kept between runs. */
  readonly stateStore?: string;
}

/** The status of a TAXII list: its polls, and what its indicators list. */
export type TaxiiListStatus = TaxiiPollStatus & StixIndicatorListStatus;

/** What a {@link TaxiiListSource} is made with. */
export interface TaxiiListSourceOptions {
  name: string;
  verdict: LocalListVerdict;
  match?: LocalListMatchMode;
  taxii: TaxiiListOptions;
  /** Time, and the poll timer (default the system clock). */
  clock?: Clock;
  logger: Logger;
  /** Certificates checked (`security.validateCertificates`). */
  validateCertificates: boolean;
  /** The directory the default state file goes in (`caching.filesystem.directory`). */
  cacheDirectory?: string;
  /** The HTTP client; one of its own (closed by stop()) when absent. */
  http?: HttpClient;
}

/** Most pages one poll reads; the rest waits for the next poll (which starts where this one stopped). */
const MAX_PAGES_PER_POLL = 1000;
/** Largest page read, in bytes. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;
/** First wait before a failed poll is tried again, doubled each time, up to the poll interval. */
const RETRY_BASE_MS = 30_000;
const STATE_VERSION = 1;

/**
 * A local list fed by a TAXII 2.1 collection (`lists: [{name, taxii: {url, collection, auth, pollInterval}}]`). Each
 * poll asks for the objects added after the last one it saw (`added_after`, from the server's
 * `X-TAXII-Date-Added-Last`), page by page (`limit`, then `next` while `more`), and takes their indicators into a
 * {@link StixIndicatorList}: newer versions replace older ones, revoked and expired ones are removed, and what cannot
 * be read is counted by reason in `status()`. The position and the indicators are saved after each poll, so a restart
 * resumes where it stopped.
 */
export class TaxiiListSource {
  readonly name: string;
  readonly list: StixIndicatorList;
  readonly #options: TaxiiListSourceOptions & { clock: Clock };
  readonly #objectsUrl: URL;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #http: HttpClient;
  readonly #ownHttp: boolean;
  #store: ListStateStore;
  #addedAfter: string | undefined;
  #ready: Promise<void> | undefined;
  #polling: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #timer: unknown;
  #running = false;
  #readyDone = false;
  #failures = 0;
  #status: {
    state: TaxiiPollStatus['state'];
    lastPollAt?: string;
    lastSuccessAt?: string;
    lastError?: string;
    polls: number;
    pages: number;
    objects: number;
  } = { state: 'never', polls: 0, pages: 0, objects: 0 };

  constructor(options: TaxiiListSourceOptions) {
    const { name, taxii } = options;
    this.name = name;
    this.#options = { ...options, clock: options.clock ?? systemClock };
    const root = taxii.url.endsWith('/') ? taxii.url : `${taxii.url}/`;
    this.#objectsUrl = new URL(`collections/${encodeURIComponent(taxii.collection)}/objects/`, root);
    this.list = new StixIndicatorList({
      name,
      verdict: options.verdict,
      ...(options.match ? { match: options.match } : {}),
      source: `TAXII collection ${this.#objectsUrl.href}`,
      now: () => this.#options.clock.now(),
    });
    const auth = taxii.auth;
    this.#headers =
      auth?.type === 'bearer'
        ? { authorization: `Bearer ${auth.token}` }
        : auth?.type === 'basic'
          ? { authorization: `Basic ${toBase64(utf8Bytes(`${auth.username}:${auth.password}`))}` }
          : {};
    this.#secrets = [
      ...(auth?.type === 'bearer' ? [auth.token] : []),
      ...(auth?.type === 'basic' && auth.password !== '' ? [auth.password] : []),
    ];
    this.#ownHttp = options.http === undefined;
    this.#http =
      options.http ??
      createHttpClient({
        validateCertificates: options.validateCertificates,
        maxResponseBytes: MAX_PAGE_BYTES,
        connectionsPerOrigin: 2,
      });
    this.#store = new FileListStateStore(taxii.stateFile ?? defaultStateFile(name, options.cacheDirectory));
  }

  /** The list's answer about `indicator` (what the client asks on every scan). */
  lookup(indicator: Indicator): FeedLookupResult {
    return this.list.lookup(indicator);
  }

  /**
   * Loads the saved state (from `store` when given: an integration's, else the state file) and polls once. Done
   * once; later calls resolve when that is done. A failure is logged and kept in `status()`, never thrown: the list
   * answers with what it holds, and the next poll tries again.
   */
  ready(store?: ListStateStore): Promise<void> {
    if (store) this.#store = store;
    this.#ready ??= this.#load()
      .then(() => this.poll())
      .then(() => {
        this.#readyDone = true;
      });
    return this.#ready;
  }

  /** Polls every `pollInterval` ms from now on (after {@link ready}), until {@link stop}. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.#readyDone) this.#schedule();
    else void this.ready().then(() => this.#schedule());
  }

  /** Stops polling: the timer is cleared, a poll under way aborted, and its progress saved. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort(new Error('the client is stopping'));
    await this.#polling?.catch(() => {});
    await this.#ready?.catch(() => {});
    if (this.#ownHttp) await this.#http.close();
    this.#status.state = this.#status.state === 'never' ? 'never' : 'stopped';
  }

  /** {@link stop}: what the client calls on the lists it loaded when it stops. */
  close(): Promise<void> {
    return this.stop();
  }

  /** Polls now (or joins the poll under way): reads every page added since the last poll, then saves the state. */
  poll(): Promise<void> {
    this.#polling ??= this.#poll().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  /** How the polls are going and what the list holds. */
  status(): TaxiiListStatus {
    const { state, lastPollAt, lastSuccessAt, lastError, polls, pages, objects } = this.#status;
    return {
      url: this.#objectsUrl.href,
      state,
      ...(this.#addedAfter === undefined ? {} : { addedAfter: this.#addedAfter }),
      ...(lastPollAt ? { lastPollAt } : {}),
      ...(lastSuccessAt ? { lastSuccessAt } : {}),
      ...(lastError ? { lastError } : {}),
      polls,
      pages,
      objects,
      stateStore: this.#store.where,
      ...this.list.status(),
    };
  }

  async #load(): Promise<void> {
    let state: ListState | undefined;
    try {
      state = await this.#store.load();
    } catch (error) {
      this.#options.logger.warn(
        { list: this.name, store: this.#store.where, err: error },
        `TAXII list "${this.name}": its saved state cannot be read; polling from the start`,
      );
      return;
    }
    if (state === undefined) return;
    if (state.version !== STATE_VERSION || state.url !== this.#objectsUrl.href || !Array.isArray(state.indicators)) {
      this.#options.logger.info(
        { list: this.name, store: this.#store.where },
        `TAXII list "${this.name}": the saved state is of another collection or version; polling from the start`,
      );
      return;
    }
    this.list.upsert(state.indicators as unknown[], { count: false });
    if (typeof state.addedAfter === 'string' && parseStixTimestamp(state.addedAfter) !== undefined) {
      this.#addedAfter = state.addedAfter;
    }
  }

  async #poll(): Promise<void> {
    const { clock, logger, taxii } = this.#options;
    const abort = new AbortController();
    this.#abort = abort;
    this.#status.lastPollAt = new Date(clock.now()).toISOString();
    const startedAfter = this.#addedAfter;
    let query: TaxiiPageQuery = {
      limit: taxii.pageSize,
      ...(startedAfter === undefined ? {} : { addedAfter: startedAfter }),
    };
    let pages = 0;
    let objects = 0;
    let problem: string | undefined;
    try {
      for (;;) {
        const page = await readTaxiiPage(this.#http, this.#objectsUrl, query, {
          headers: this.#headers,
          timeoutMs: taxii.timeout,
          signal: abort.signal,
        });
        pages += 1;
        objects += page.objects.length;
        this.list.upsert(page.objects, { commit: false });
        const last = page.dateAddedLast;
        if (last !== undefined && (this.#addedAfter === undefined || later(last, this.#addedAfter))) {
          this.#addedAfter = last;
        }
        if (!page.more) break;
        if (pages >= MAX_PAGES_PER_POLL) {
          problem = `stopped after ${MAX_PAGES_PER_POLL} pages; the next poll goes on from there`;
          break;
        }
        if (page.next !== undefined) {
          // TAXII 2.1 section 3.4: the next page is asked for with `next` and the query's other options unchanged.
          query = {
            limit: taxii.pageSize,
            next: page.next,
            ...(startedAfter === undefined ? {} : { addedAfter: startedAfter }),
          };
        } else if (last !== undefined) {
          // A server without `next` pages by date: the objects added after the last one of this page.
          query = { limit: taxii.pageSize, addedAfter: last };
        } else {
          problem = 'the server said more objects are waiting but gave neither next nor X-TAXII-Date-Added-Last';
          break;
        }
      }
    } catch (error) {
      problem = this.#describe(error);
    } finally {
      this.#abort = undefined;
      this.list.commit();
    }
    await this.#save();
    // Counted once the poll has ended and its state is saved: a caller waiting on polls sees the whole poll.
    this.#status.polls += 1;
    this.#status.pages += pages;
    this.#status.objects += objects;
    if (problem === undefined) {
      this.#failures = 0;
      this.#status.state = 'ok';
      this.#status.lastSuccessAt = new Date(clock.now()).toISOString();
      delete this.#status.lastError;
      logger.info(
        { list: this.name, pages, objects, addedAfter: this.#addedAfter },
        `TAXII list "${this.name}": ${objects} objects read in ${pages} pages`,
      );
    } else {
      this.#failures += 1;
      this.#status.state = 'error';
      this.#status.lastError = problem;
      logger.warn(
        { list: this.name, pages, objects, error: problem },
        `TAXII list "${this.name}": the poll failed after ${pages} pages: ${problem}`,
      );
    }
  }

  async #save(): Promise<void> {
    const indicators: StixIndicatorSnapshot[] = this.list.snapshot();
    try {
      await this.#store.save({
        version: STATE_VERSION,
        url: this.#objectsUrl.href,
        ...(this.#addedAfter === undefined ? {} : { addedAfter: this.#addedAfter }),
        savedAt: new Date(this.#options.clock.now()).toISOString(),
        indicators,
      });
    } catch (error) {
      this.#options.logger.error(
        { list: this.name, store: this.#store.where, err: error },
        `TAXII list "${this.name}": its state cannot be saved; a restart will poll from the last saved position`,
      );
    }
  }

  #schedule(): void {
    if (!this.#running || this.#timer !== undefined) return;
    const { pollInterval } = this.#options.taxii;
    const wait =
      this.#failures === 0
        ? pollInterval
        : Math.min(pollInterval, RETRY_BASE_MS * 2 ** Math.min(this.#failures - 1, 20));
    this.#timer = this.#options.clock.setTimeout(
      () => {
        this.#timer = undefined;
        void this.poll().then(() => this.#schedule());
      },
      wait,
      { unref: true },
    );
  }

  /** An error as words for the status and the log, with every credential the source sends taken out. */
  #describe(error: unknown): string {
    let text = HttpError.isInstance(error) || error instanceof Error ? error.message : String(error);
    for (const secret of this.#secrets) text = text.replaceAll(secret, '[REDACTED]');
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  }
}

function later(a: string, b: string): boolean {
  return (parseStixTimestamp(a) ?? 0) > (parseStixTimestamp(b) ?? 0);
}
