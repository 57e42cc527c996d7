import type { Agent } from 'undici';
import { type Clock, systemClock } from '../../scheduler/clock.js';
import {
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  inspectView,
} from '../../security/redacted-view.js';
import { REDACTED, redactText } from '../redaction.js';
import type { LogEntry, LogSink, TransportReport } from './log-sink.js';

// undici is imported on the first batch sent, not with the module (it is 110 modules, and most loggers have no
// webhook).
let undici: Promise<typeof import('undici')> | undefined;

/** Options of {@link WebhookTransport}. */
export interface WebhookTransportOptions {
  /** The name in stats, metrics and reports (default `webhook`; `webhook#2`... for a second one of the type). */
  name?: string;
  /** Where batches are POSTed, as a JSON array of log records. */
  url: string;
  /** Sent with every batch (an Authorization header, say); never logged. */
  headers?: Record<string, string>;
  /** Lines per request; a full batch is sent at once. Default 100. */
  batchSize?: number;
  /** Most ms a line waits for its batch to fill before it is sent anyway. Default 5000. */
  flushInterval?: number;
  /** Further attempts after a failed one (network error, 408, 429 or 5xx), with doubling delays. Default 3. */
  retries?: number;
  /** Lines held while the endpoint is slow or down; past that new lines are dropped and counted. Default 10,000. */
  maxBuffer?: number;
  /** Most ms one request may take (connect, headers, body). Default 10,000. */
  timeout?: number;
  /** The lowest pino level sent. Default 0 (all). */
  level?: number;
  filter?: ((line: Record<string, unknown>) => boolean) | undefined;
  /** Told once when lines start being dropped, and once when the endpoint takes them again. */
  report?: TransportReport;
  /** Timers for the flush interval and retry delays; a test's `ManualClock` moves them without sleeping. */
  clock?: Clock;
  /** The delay before retry `n` (1-based). Default 250 ms doubling, at most 30 s. */
  backoff?: (attempt: number) => number;
}

const defaultBackoff = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 30_000);

/**
 * Sends log lines to an HTTP endpoint in batches: `batchSize` lines, or whatever arrived within `flushInterval` ms,
 * POSTed as a JSON array with the configured headers, one request at a time so batches arrive in order. `write`
 * only appends to a bounded buffer: a slow or dead endpoint never blocks nor crashes the caller; when the buffer is
 * full, new lines are dropped and counted (`stats().dropped`), and that is reported once per outage.
 */
export class WebhookTransport implements LogSink {
  readonly name: string;
  readonly level: number;
  readonly filter: ((line: Record<string, unknown>) => boolean) | undefined;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #batchSize: number;
  readonly #flushInterval: number;
  readonly #retries: number;
  readonly #maxBuffer: number;
  readonly #timeout: number;
  readonly #clock: Clock;
  readonly #backoff: (attempt: number) => number;
  readonly #report: TransportReport | undefined;
  #buffer: string[] = [];
  #timer: unknown;
  #sending: Promise<void> | undefined;
  /** Set by flush/close: send the partial batch too. */
  #sendAll = false;
  /** Set by close: one attempt per batch, no waiting. */
  #closing = false;
  #wake: (() => void) | undefined;
  #agent: Agent | undefined;
  #droppedInOutage = 0;
  #stats = { sent: 0, batches: 0, failedBatches: 0, dropped: 0 };

  constructor(options: WebhookTransportOptions) {
    this.name = options.name ?? 'webhook';
    this.#url = options.url;
    this.#headers = { ...options.headers, 'content-type': 'application/json' };
    this.#batchSize = options.batchSize ?? 100;
    this.#flushInterval = options.flushInterval ?? 5000;
    this.#retries = options.retries ?? 3;
    this.#maxBuffer = options.maxBuffer ?? 10_000;
    this.#timeout = options.timeout ?? 10_000;
    this.#clock = options.clock ?? systemClock;
    this.#backoff = options.backoff ?? defaultBackoff;
    this.#report = options.report;
    this.level = options.level ?? 0;
    this.filter = options.filter;
  }

  write(entry: LogEntry): void {
    if (this.#buffer.length >= this.#maxBuffer) {
      this.#drop(1);
      return;
    }
    this.#buffer.push(entry.line);
    if (this.#buffer.length >= this.#batchSize) this.#kick();
    else this.#arm();
  }

  /** Sends everything buffered now, retrying as usual; resolves when it was delivered or given up. */
  async flush(): Promise<void> {
    while (this.#buffer.length > 0 || this.#sending) {
      this.#sendAll = true;
      this.#kick();
      await this.#sending;
    }
  }

  /**
   * Sends what is buffered with one attempt per batch (a dead endpoint must not hold up a shutdown through its
   * retry delays), then closes the connection pool. What could not be sent is counted as dropped.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#wake?.();
    try {
      await this.flush();
    } finally {
      this.#closing = false;
      this.#sendAll = false;
      this.#disarm();
      const agent = this.#agent;
      this.#agent = undefined;
      await agent?.close();
    }
  }

  /** What `JSON.stringify` writes of the transport: its name, level and URL; header names only, no value. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      level: this.level,
      url: redactText(this.#url),
      headers: Object.fromEntries(Object.keys(this.#headers).map((header) => [header, REDACTED])),
    };
  }

  /** What `util.inspect` and `console.log` show of the transport: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('WebhookTransport', this.toJSON(), depth, options, inspect);
  }

  stats(): Record<string, number> {
    return { ...this.#stats, buffered: this.#buffer.length };
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#sending) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#sendAll = true;
      this.#kick();
    }, this.#flushInterval);
  }

  #disarm(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #kick(): void {
    if (this.#sending) return;
    this.#disarm();
    this.#sending = this.#drain().finally(() => {
      this.#sending = undefined;
      this.#sendAll = false;
      // Lines that arrived during the last request wait for their own interval.
      if (this.#buffer.length > 0) {
        if (this.#buffer.length >= this.#batchSize) this.#kick();
        else this.#arm();
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#buffer.length >= this.#batchSize || (this.#sendAll && this.#buffer.length > 0)) {
      const batch = this.#buffer.splice(0, this.#batchSize);
      if (await this.#send(batch)) {
        this.#stats.sent += batch.length;
        this.#stats.batches += 1;
        this.#recovered();
      } else {
        this.#stats.failedBatches += 1;
        this.#drop(batch.length);
        // Shutting down with the endpoint failing: the rest would fail the same way, one timeout each.
        if (this.#closing) this.#drop(this.#buffer.splice(0).length);
      }
    }
  }

  /** One batch, with retries; true when the endpoint took it. */
  async #send(batch: string[]): Promise<boolean> {
    const body = `[${batch.join(',')}]`;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#post(body);
      if (outcome === 'ok') return true;
      if (outcome === 'refused' || this.#closing || attempt >= this.#retries) return false;
      await this.#sleep(this.#backoff(attempt + 1));
    }
  }

  async #post(body: string): Promise<'ok' | 'retry' | 'refused'> {
    undici ??= import('undici');
    const { Agent, request } = await undici;
    this.#agent ??= new Agent({ connect: { timeout: this.#timeout }, keepAliveTimeout: 4_000 });
    try {
      const response = await request(this.#url, {
        method: 'POST',
        headers: this.#headers,
        body,
        dispatcher: this.#agent,
        headersTimeout: this.#timeout,
        bodyTimeout: this.#timeout,
      });
      await response.body.dump();
      if (response.statusCode < 300) return 'ok';
      const retryable = response.statusCode === 408 || response.statusCode === 429 || response.statusCode >= 500;
      return retryable ? 'retry' : 'refused';
    } catch {
      return 'retry';
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        this.#clock.clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  #drop(lines: number): void {
    this.#stats.dropped += lines;
    if (this.#droppedInOutage === 0) {
      this.#report?.(
        'warn',
        { transport: this.name, url: redactText(this.#url), maxBuffer: this.#maxBuffer },
        'log webhook is not taking lines: lines are being dropped until it does',
      );
    }
    this.#droppedInOutage += lines;
  }

  #recovered(): void {
    if (this.#droppedInOutage === 0) return;
    const dropped = this.#droppedInOutage;
    this.#droppedInOutage = 0;
    this.#report?.(
      'info',
      { transport: this.name, url: redactText(this.#url), dropped },
      `log webhook takes lines again; ${dropped} lines were dropped meanwhile`,
    );
  }
}
