import type { LogEntry, LogSink } from './log-sink.js';

/** Anything lines can be written to: `process.stderr`, a file stream, an array collector in a test. */
export interface LineDestination {
  write(line: string): unknown;
}

/**
 * Writes each line, as JSON or rendered as text, to a destination such as stderr. Writes are synchronous when the
 * destination's are (stderr to a file or pipe is, on Linux), so nothing is buffered here.
 */
export class StreamSink implements LogSink {
  readonly name: string;
  readonly level: number;
  readonly #destination: LineDestination;
  readonly #text: boolean;
  #written = 0;

  constructor(options: { name: string; level: number; destination: LineDestination; text: boolean }) {
    this.name = options.name;
    this.level = options.level;
    this.#destination = options.destination;
    this.#text = options.text;
  }

  write(entry: LogEntry): void {
    this.#destination.write(`${this.#text ? entry.text() : entry.line}\n`);
    this.#written += 1;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}

  stats(): Record<string, number> {
    return { written: this.#written };
  }
}
