import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Options, RotatingFileStream } from 'rotating-file-stream';
import { type Clock, systemClock } from '../../scheduler/clock.js';
import type { LogEntry, LogSink, TransportReport } from './log-sink.js';

/** Options of {@link FileTransport}. */
export interface FileTransportOptions {
  /** The name in stats, metrics and reports (default `file`; `file#2`... for a second one of the type). */
  name?: string;
  /** The live log file; rotated files sit beside it as `<filename>.1.gz` (newest) ... `<filename>.N.gz`. */
  filename: string;
  /** Bytes after which the file is rotated (checked after each write, so a file may end one line over). */
  maxSize: number;
  /**
   * Files kept in all, the live one included (at least 2): after any number of rotations there are exactly
   * `maxFiles` files, `<filename>` and `<filename>.1` ... `<filename>.<maxFiles - 1>`; older ones are deleted.
   */
  maxFiles: number;
  /** Gzip rotated files (`<filename>.1.gz`). */
  compress: boolean;
  /** The lowest pino level written. */
  level: number;
  filter?: ((line: Record<string, unknown>) => boolean) | undefined;
  /** Write lines rendered as text instead of JSON. */
  text: boolean;
  /** Told once when the file cannot be written, and once when it can again. */
  report?: TransportReport;
  /** For the retry delay after a failure. */
  clock?: Clock;
}

/** How long writes are dropped after the file failed, before opening it is tried again. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * A log file rotated by size, keeping `maxFiles` files and gzipping rotated ones. Rotation, the shifting of
 * `<filename>.N` names and compression are `rotating-file-stream`'s (its "classical" logrotate mode): writes never
 * wait, lines written during a rotation are queued in order, and none is lost.
 */
export class FileTransport implements LogSink {
  readonly name: string;
  readonly level: number;
  readonly filter: ((line: Record<string, unknown>) => boolean) | undefined;
  readonly #options: FileTransportOptions;
  readonly #clock: Clock;
  #stream: RotatingFileStream | undefined;
  #failedUntil = 0;
  #failing = false;
  #written = 0;
  #dropped = 0;
  #rotations = 0;

  constructor(options: FileTransportOptions) {
    if (!Number.isInteger(options.maxFiles) || options.maxFiles < 2) {
      throw new RangeError(`maxFiles must be an integer of at least 2 (got ${options.maxFiles})`);
    }
    this.#options = options;
    this.name = options.name ?? 'file';
    this.level = options.level;
    this.filter = options.filter;
    this.#clock = options.clock ?? systemClock;
  }

  write(entry: LogEntry): void {
    const stream = this.#open();
    if (!stream) {
      this.#dropped += 1;
      return;
    }
    stream.write(`${this.#options.text ? entry.text() : entry.line}\n`);
    this.#written += 1;
  }

  async flush(): Promise<void> {
    const stream = this.#stream;
    if (!stream || stream.destroyed) return;
    // An empty write completes after every write queued before it, rotations included.
    await new Promise<void>((done) => stream.write('', () => done()));
  }

  async close(): Promise<void> {
    const stream = this.#stream;
    this.#stream = undefined;
    if (!stream || stream.destroyed) return;
    stream.end();
    await finished(stream).catch(() => undefined);
  }

  stats(): Record<string, number> {
    return { written: this.#written, dropped: this.#dropped, rotations: this.#rotations };
  }

  #open(): RotatingFileStream | undefined {
    if (this.#stream && !this.#stream.destroyed) return this.#stream;
    if (this.#clock.now() < this.#failedUntil) return undefined;
    const { filename, maxSize, maxFiles, compress } = this.#options;
    const path = resolve(filename);
    const { createStream } = createRequire(import.meta.url)(
      'rotating-file-stream',
    ) as typeof import('rotating-file-stream');
    const options: Options = {
      path: dirname(path),
      size: `${Math.max(1, Math.floor(maxSize))}B`,
      rotate: maxFiles - 1,
    };
    if (compress) options.compress = 'gzip';
    const stream = createStream(basename(path), options);
    stream.on('error', (error: Error) => {
      if (this.#stream === stream) this.#stream = undefined;
      this.#failedUntil = this.#clock.now() + RETRY_AFTER_FAILURE_MS;
      if (this.#failing) return;
      this.#failing = true;
      this.#options.report?.(
        'warn',
        { transport: this.name, filename, err: error },
        `log file ${filename} cannot be written; its lines are dropped until it can`,
      );
    });
    stream.on('warning', () => undefined);
    stream.on('rotated', () => {
      this.#rotations += 1;
    });
    stream.on('open', () => {
      if (!this.#failing) return;
      this.#failing = false;
      this.#options.report?.('info', { transport: this.name, filename }, `log file ${filename} is written again`);
    });
    this.#stream = stream;
    return stream;
  }
}
