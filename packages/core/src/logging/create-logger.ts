import type { Logger as PinoLogger } from 'pino';
import { FileTransport, loadPino, SyslogTransport, standardError, WebhookTransport } from '#logging-platform';
import { parseSize } from '../cache/size.js';
import type { LoggingConfig } from '../config/schema.js';
import type { Clock } from '../scheduler/clock.js';
import { lineFilter } from './filters.js';
import { pinoOptionsFor } from './formats.js';
import { LEVEL_VALUES } from './log-levels.js';
import { LogRouter } from './log-router.js';
import { mayHoldSecrets } from './redaction.js';
import type { LogSink, TransportReport } from './transports/log-sink.js';
import { type LineDestination, StreamSink } from './transports/stream-sink.js';

export type { PinoLogger };

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /**
   * Where lines go instead of stderr: anything with `write(line)`, such as a file stream, or an array collector in
   * a test that checks what was logged. Lines are in `logging.format`, one per call, ending with a newline.
   */
  destination?: LineDestination;
  /** Timers of the webhook's flush interval and of retry delays; a test's `ManualClock` moves them. */
  clock?: Clock;
}

/** Where a logger made by {@link createLogger} keeps its router; children inherit it through their prototype. */
const ROUTER = Symbol('threatlib.logRouter');
/** The category of a logger's lines, set by `child({category})`; kept out of pino's bindings (see below). */
const CATEGORY = Symbol('threatlib.logCategory');
/** The `feed` binding of a logger, for `filters.excludeFeeds`. */
const FEED = Symbol('threatlib.logFeed');
/** Set on a logger whose bindings may hold a secret: each of its lines is then redacted in full. */
const SUSPECT = Symbol('threatlib.logSuspect');

interface Marks {
  [ROUTER]?: LogRouter;
  [CATEGORY]?: string;
  [FEED]?: string;
  [SUSPECT]?: boolean;
}

type MarkedLogger = PinoLogger & Marks;

/**
 * Makes the logger a configuration describes: a pino logger (so fastify can use it as its `loggerInstance`)
 * writing to stderr (a library leaves stdout to its host) and to each transport of `logging.transports`, in
 * `logging.format`, keeping only what `logging.filters` lets through. Secrets are removed from every line before it
 * reaches any destination: values of fields named like keys, passwords, tokens or Authorization headers at any
 * depth (errors and bindings included), and credentials in URLs and text. With `logging.enabled` false it is a
 * pino logger that writes nothing.
 *
 * Transports buffer: call {@link closeLogger} (the client's `stop()` does, for the logger it made) to send what is
 * pending and release their sockets, timers and files.
 *
 * @example
 * ```ts
 * const logger = createLogger(parseConfig({ sources: ['feed_urls'], logging: {
 *   format: 'text',
 *   transports: [{ type: 'file', filename: 'threatlib.log', maxSize: '10MB', maxFiles: 5, compress: true }],
 * } }).logging);
 * logger.child({ category: 'feed' }).warn({ feed: 'feed_otx' }, 'slow answer');
 * await closeLogger(logger);
 * ```
 */
export function createLogger(logging: LoggingConfig, options: CreateLoggerOptions = {}): PinoLogger {
  // Loaded on first use: a client given its own logger never pays for pino.
  const pino = loadPino();
  if (!logging.enabled) return pino({ enabled: false });

  let root: MarkedLogger | undefined;
  // Deferred: a transport reports from inside a write, and pino's write is not re-entrant.
  const report: TransportReport = (level, fields, message) =>
    queueMicrotask(() => root?.[level]({ category: 'client', ...fields }, message));
  const sinks = transportSinks(logging, options, report);
  if (sinks.length === 0) return pino({ enabled: false });
  const router = new LogRouter(sinks);
  const lowest = Math.min(...sinks.map((sink) => sink.level));
  const keep = lineFilter(logging.filters);

  const logger = pino(
    {
      ...pinoOptionsFor(logging.format),
      level: levelLabel(lowest),
      hooks: {
        // Runs only for enabled levels: a disabled call stays pino's no-op.
        logMethod(this: MarkedLogger, args, method) {
          const first: unknown = args[0];
          const fields = typeof first === 'object' && first !== null && !(first instanceof Error) ? first : undefined;
          const ownCategory = (fields as { category?: unknown } | undefined)?.category;
          const category = ownCategory ?? this[CATEGORY];
          if (keep) {
            const feed = (fields as { feed?: unknown } | undefined)?.feed ?? this[FEED];
            if (!keep(category, feed)) return;
          }
          let suspect = this[SUSPECT] === true;
          for (let i = 0; !suspect && i < args.length; i++) suspect = mayHoldSecrets(args[i]);
          // pino's hook gets a fresh array of the call's arguments: changing it in place is safe.
          const mutable = args as unknown[];
          if (category !== undefined && ownCategory === undefined) {
            if (fields) mutable[0] = { category, ...fields };
            else if (first instanceof Error) mutable[0] = { category, err: first };
            else mutable.unshift({ category });
          }
          router.suspect = suspect;
          method.apply(this, args);
        },
      },
    },
    router,
  ) as unknown as MarkedLogger;
  logger[ROUTER] = router;
  // Lines logged through the root (the client's own, or `client.logger` used directly) are the client's.
  logger[CATEGORY] = 'client';
  markChildren(logger);
  root = logger;
  return logger;
}

/**
 * Gives a logger and all its descendants a `child` (and `setBindings`) that notes bindings that may hold a secret,
 * and keeps `category` (and `feed`) aside:
 * pino writes a child's bindings after its parent's, so a subsystem's category would otherwise appear twice in a
 * line of a sub-subsystem. The logMethod hook adds it to each line instead.
 */
function markChildren(root: MarkedLogger): void {
  const pinoChild = root.child;
  const child = function (
    this: MarkedLogger,
    bindings: Record<string, unknown>,
    childOptions?: Parameters<PinoLogger['child']>[1],
  ) {
    const { category, ...rest } = bindings ?? {};
    const instance = pinoChild.call(this, rest, childOptions) as unknown as MarkedLogger;
    if (typeof category === 'string') instance[CATEGORY] = category;
    if (typeof rest.feed === 'string') instance[FEED] = rest.feed;
    if (!this[SUSPECT] && (mayHoldSecrets(rest) || mayHoldSecrets(childOptions?.msgPrefix))) instance[SUSPECT] = true;
    return instance;
  };
  const pinoSetBindings = root.setBindings;
  const setBindings = function (this: MarkedLogger, bindings: Record<string, unknown>) {
    if (mayHoldSecrets(bindings)) this[SUSPECT] = true;
    pinoSetBindings.call(this, bindings);
  };
  Object.defineProperty(root, 'child', { value: child, writable: true, configurable: true });
  Object.defineProperty(root, 'setBindings', { value: setBindings, writable: true, configurable: true });
}

function levelLabel(value: number): string {
  const entry = Object.entries(LEVEL_VALUES).find(([, v]) => v === value);
  return entry ? entry[0] : 'info';
}

function transportSinks(logging: LoggingConfig, options: CreateLoggerOptions, report: TransportReport): LogSink[] {
  const text = logging.format === 'text';
  const level = (name: string | undefined) => LEVEL_VALUES[(name ?? logging.level) as keyof typeof LEVEL_VALUES];
  const sinks: LogSink[] = [];
  if (options.destination || logging.stderr) {
    sinks.push(
      new StreamSink({
        name: options.destination ? 'destination' : 'stderr',
        level: level(undefined),
        destination: options.destination ?? standardError(),
        text,
      }),
    );
  }
  const seen = new Map<string, number>();
  for (const [index, transport] of logging.transports.entries()) {
    // The first transport of a type keeps the type's name (`file`); later ones are `file#2`, `file#3`...
    const count = (seen.get(transport.type) ?? 0) + 1;
    seen.set(transport.type, count);
    const name = count === 1 ? transport.type : `${transport.type}#${count}`;
    const clock = options.clock ? { clock: options.clock } : {};
    switch (transport.type) {
      case 'file':
        sinks.push(
          new FileTransport({
            name,
            filename: transport.filename,
            maxSize: parseSize(transport.maxSize, `logging.transports[${index}].maxSize`),
            maxFiles: transport.maxFiles,
            compress: transport.compress,
            level: level(transport.level),
            filter: transport.filter,
            text,
            report,
            ...clock,
          }),
        );
        break;
      case 'webhook':
        sinks.push(
          new WebhookTransport({
            name,
            url: transport.url,
            headers: transport.headers,
            batchSize: transport.batchSize,
            flushInterval: transport.flushInterval,
            retries: transport.retries,
            maxBuffer: transport.maxBuffer,
            timeout: transport.timeout,
            level: level(transport.level),
            filter: transport.filter,
            report,
            ...clock,
          }),
        );
        break;
      case 'syslog':
        sinks.push(
          new SyslogTransport({
            name,
            host: transport.host,
            port: transport.port,
            protocol: transport.protocol,
            facility: transport.facility,
            appName: transport.appName,
            level: level(transport.level),
            filter: transport.filter,
            text,
            report,
            ...clock,
          }),
        );
        break;
    }
  }
  return sinks;
}

function routerOf(logger: unknown): LogRouter | undefined {
  return typeof logger === 'object' && logger !== null ? (logger as Marks)[ROUTER] : undefined;
}

/**
 * Sends what a logger made by {@link createLogger} has buffered (webhook batches, queued syslog messages, file
 * writes) and closes its transports' sockets, timers and files. The logger stays usable: a later line opens them
 * again. Does nothing for any other logger.
 */
export async function closeLogger(logger: unknown): Promise<void> {
  await routerOf(logger)?.closeAll();
}

/** Resolves once every line logged so far has reached its transports' destinations (or was counted as dropped). */
export async function flushLogger(logger: unknown): Promise<void> {
  await routerOf(logger)?.flushAll();
}

/**
 * Counters of each destination of a logger made by {@link createLogger}, by name (`stderr`, `file`, `webhook`,
 * `syslog`; a second transport of a type is `file#2`, and so on): lines `written`/`sent`, `buffered`, `dropped` (a full webhook buffer, a syslog server down), `errors`.
 * Empty for any other logger.
 *
 * @example
 * ```ts
 * const { webhook } = logTransportStats(client.logger);
 * if (webhook?.dropped) console.warn(`${webhook.dropped} log lines never reached the webhook`);
 * ```
 */
export function logTransportStats(logger: unknown): Record<string, Record<string, number>> {
  return routerOf(logger)?.stats() ?? {};
}
