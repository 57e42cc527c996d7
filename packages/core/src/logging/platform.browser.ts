import { type pino as Pino, pino as pagePino } from 'pino';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import type { LogSink } from './transports/log-sink.js';
import type { LineDestination } from './transports/stream-sink.js';

/*
 * What logging takes from a page (chosen by package.json `imports`, `#logging-platform`, condition `browser`):
 * pino's browser build, whose lines are handed as JSON to the same router (and so the same redaction: without
 * pino's hooks in a page, every line is checked in full) and the console for `logging.stderr`. The transports that
 * need files or sockets are refused with a RuntimeUnsupportedError when configured, never at import.
 */

/** The router's side of a destination: what it reads of the record before each line. */
interface RouterLike extends LineDestination {
  lastLevel?: number;
  lastObj?: unknown;
}

/** pino's factory for a page: records go as JSON lines to the destination, as Node's pino writes them. */
export function loadPino(): typeof Pino {
  const make = (options: Pino.LoggerOptions = {}, destination?: RouterLike) =>
    pagePino({
      ...options,
      browser: {
        asObject: true,
        write: (record: object) => {
          if (destination === undefined) return;
          destination.lastLevel = (record as { level?: number }).level ?? 30;
          destination.lastObj = record;
          destination.write(`${JSON.stringify(record)}\n`);
        },
      },
    });
  return make as unknown as typeof Pino;
}

/** The ECS format needs Node.js's pino: `structured` is refused in a page. */
export function loadEcsFormat(): never {
  throw new RuntimeUnsupportedError(
    'logging.format structured',
    'logging.format "structured" is not available in the browser: use "json" or "text"',
  );
}

/** Where `logging.stderr` lines go in a page: the console. */
export function standardError(): LineDestination {
  return {
    write(line: string) {
      // biome-ignore lint/suspicious/noConsole: a page's stderr is its console; this is logging.stderr's destination.
      console.error(line.endsWith('\n') ? line.slice(0, -1) : line);
    },
  };
}

/** A transport that needs Node.js, refused when configured. */
function nodeOnly(type: string): new (options: unknown) => LogSink {
  return class {
    constructor() {
      throw new RuntimeUnsupportedError(
        `logging transport ${type}`,
        `logging.transports type "${type}" is not available in the browser: it needs Node.js (files and sockets); ` +
          'use logging.stderr (the console) or a logger of your own (the client option `logger`)',
      );
    }
  } as unknown as new (
    options: unknown,
  ) => LogSink;
}

/** Refused in a page: a log file needs a file system. */
export const FileTransport = nodeOnly('file');
/** Refused in a page: syslog needs UDP/TCP sockets. */
export const SyslogTransport = nodeOnly('syslog');
/** Refused in a page for now: the webhook transport sends through undici. */
export const WebhookTransport = nodeOnly('webhook');
