import { lineSafeJson } from '../text/control-characters.js';
import { formatText } from './formats.js';
import { redactLogLine } from './redaction.js';
import type { LogEntry, LogSink } from './transports/log-sink.js';

/** pino's "metadata" flag: a destination that has it is told each line's level and merge object. */
const PINO_METADATA: unique symbol = Symbol.for('pino.metadata');

/**
 * pino's destination for a threatlib logger: each line is stripped of secrets once (parsed and rewritten only when
 * it may hold one), then handed to every sink
 * whose level and filter take it. pino tells it each line's level and merge object (its "metadata" protocol), so
 * a line is parsed only when a sink needs the fields (a filter, the text format).
 */
export class LogRouter {
  /** Asks pino to set `lastLevel` and `lastObj` before each `write`. */
  readonly [PINO_METADATA] = true;
  lastLevel = 0;
  lastObj: unknown;
  /**
   * Set by the logger just before each call reaches pino, from a cheap look at what was logged (see
   * `mayHoldSecrets`): false means the line cannot hold a secret and skips the full redaction. Any write it did not
   * announce is checked in full.
   */
  suspect = true;
  readonly sinks: readonly LogSink[];
  #sinkErrors = 0;

  constructor(sinks: readonly LogSink[]) {
    this.sinks = sinks;
  }

  write(chunk: string): void {
    const raw = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
    const category = (this.lastObj as { category?: unknown } | undefined)?.category;
    // pino escapes the C0 controls in JSON strings but leaves DEL, the C1 controls (NEL) and U+2028/U+2029 raw,
    // which line readers may split at: every destination gets the line with those escaped too.
    const line = lineSafeJson(this.suspect ? redactLogLine(raw) : raw);
    this.suspect = true;
    const entry = new Entry(line, this.lastLevel, typeof category === 'string' ? category : undefined);
    for (const sink of this.sinks) {
      if (entry.level < sink.level) continue;
      try {
        if (sink.filter && !sink.filter(entry.record())) continue;
        sink.write(entry);
      } catch {
        // A throwing filter or destination loses that line for that sink only; logging never throws at a caller.
        this.#sinkErrors += 1;
      }
    }
  }

  /** pino's `logger.flush(cb)` lands here. */
  flush(callback?: (error?: Error) => void): void {
    this.flushAll().then(
      () => callback?.(),
      (error: Error) => callback?.(error),
    );
  }

  async flushAll(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.flush()));
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.close()));
  }

  stats(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const sink of this.sinks) out[sink.name] = sink.stats();
    if (this.#sinkErrors > 0) out.router = { errors: this.#sinkErrors };
    return out;
  }
}

class Entry implements LogEntry {
  readonly line: string;
  readonly level: number;
  readonly category: string | undefined;
  #record: Record<string, unknown> | undefined;
  #text: string | undefined;

  constructor(line: string, level: number, category: string | undefined) {
    this.line = line;
    this.level = level;
    this.category = category;
  }

  record(): Record<string, unknown> {
    if (this.#record === undefined) {
      try {
        const parsed: unknown = JSON.parse(this.line);
        this.#record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
      } catch {
        this.#record = { msg: this.line };
      }
    }
    return this.#record;
  }

  text(): string {
    this.#text ??= formatText(this.record());
    return this.#text;
  }
}
