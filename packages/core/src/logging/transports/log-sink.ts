/** One log line on its way out, as every destination sees it. */
export interface LogEntry {
  /** pino's numeric level (30 = info). */
  readonly level: number;
  /** The line's `category`, when it has one. */
  readonly category: string | undefined;
  /** The JSON line (secrets already removed), without its newline. */
  readonly line: string;
  /** The line parsed; parsed once, on first use, for all destinations. */
  record(): Record<string, unknown>;
  /** The line as `logging.format: 'text'` renders it; rendered once, on first use. */
  text(): string;
}

/**
 * A destination of log lines (stderr, a file, a webhook, syslog). `write` must never block nor throw: a slow or
 * dead destination buffers or drops, and says so through its stats.
 */
export interface LogSink {
  /** Short name used in reports and stats (`file`, `webhook`, `syslog`, `stderr`). */
  readonly name: string;
  /** The lowest pino level written here. */
  readonly level: number;
  /** Keeps a line when it returns true; given the parsed line. */
  readonly filter?: ((line: Record<string, unknown>) => boolean) | undefined;
  write(entry: LogEntry): void;
  /** Resolves once every line written so far has been handed on (or given up and counted as dropped). */
  flush(): Promise<void>;
  /**
   * Flushes, then releases every socket, timer and file handle. A later `write` opens them again, so a client can
   * be stopped and started again with the same logger.
   */
  close(): Promise<void>;
  /** Counters: lines written, buffered, dropped... */
  stats(): Record<string, number>;
}

/** How a transport tells its owner about trouble, once per episode, without logging through itself. */
export type TransportReport = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => void;
