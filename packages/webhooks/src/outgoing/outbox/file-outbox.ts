import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { webhookOutboxEntry, writeFileAtomic } from '@threatlib/core/integration';
import type { OutboxEntry, WebhookOutbox } from './outbox.js';
import { acquireLock } from './outbox-lock.js';

/** The journal's file name in the outbox directory. */
const JOURNAL = 'outbox.jsonl';
const LOCK = 'outbox.lock';
/** The journal is rewritten with only the waiting entries once it has this many lines more than them. */
const COMPACT_SLACK = 10_000;

type Line = { put: OutboxEntry } | { remove: string };

/** Lines waiting for the next write, and the promise every one of them shares (one per batch, not one per line). */
interface Batch {
  lines: string[];
  /** Entries put in this batch: forgotten again if the batch cannot be written. */
  puts: OutboxEntry[];
  written: Promise<void>;
  done: () => void;
  failed: (error: unknown) => void;
}

/**
 * The default outbox: a journal file (`outbox.jsonl`, one JSON line per put or remove) in a directory of its own.
 * Writes are group-committed: every line queued while the previous write is being flushed goes out in the next
 * write, followed by one fsync when it holds a put, and each `put` resolves once its line is on disk. Opening replays the journal
 * (a line torn by a crash is ignored: its put had not resolved) and rewrites it with only the waiting entries,
 * atomically (temporary file, fsync, rename, directory fsync); so does a journal grown long. A lock file keeps a
 * second manager, in this process or another live one, off the directory.
 */
export class FileOutbox implements WebhookOutbox {
  readonly directory: string;
  readonly #journal: string;
  readonly #entries = new Map<string, OutboxEntry>();
  #handle: Awaited<ReturnType<typeof open>> | undefined;
  #release: (() => Promise<void>) | undefined;
  #batch: Batch | undefined;
  #lastBody: string | undefined;
  #lastBodyJson = '';
  #flushing: Promise<void> | undefined;
  #lines = 0;
  #open = false;
  /** A write failed part-way: the next one starts on a new line, so the torn one stays alone and is skipped. */
  #torn = false;

  constructor(directory: string) {
    this.directory = directory;
    this.#journal = join(directory, JOURNAL);
  }

  /** Whether the outbox's directory exists (a manager that never sent has none). */
  async exists(): Promise<boolean> {
    return stat(this.directory).then(
      () => true,
      () => false,
    );
  }

  async open(): Promise<OutboxEntry[]> {
    if (this.#open) return [...this.#entries.values()];
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    this.#release = await acquireLock(join(this.directory, LOCK));
    try {
      this.#entries.clear();
      const text = await readFile(this.#journal, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      });
      for (const raw of text.split('\n')) {
        const line = parseLine(raw);
        if (!line) continue;
        if ('put' in line) this.#entries.set(line.put.key, line.put);
        else this.#entries.delete(line.remove);
      }
      await this.#compact();
      this.#open = true;
    } catch (error) {
      await this.#release();
      this.#release = undefined;
      throw error;
    }
    return [...this.#entries.values()];
  }

  put(entry: OutboxEntry): Promise<void> {
    if (!this.#open) return this.#closed();
    this.#entries.set(entry.key, entry);
    const batch = this.#next();
    batch.lines.push(this.#putLine(entry));
    batch.puts.push(entry);
    return batch.written;
  }

  remove(key: string): Promise<void> {
    if (!this.#open) return this.#closed();
    if (!this.#entries.delete(key)) return Promise.resolve();
    const batch = this.#next();
    batch.lines.push(JSON.stringify({ remove: key } satisfies Line));
    return batch.written;
  }

  async close(): Promise<void> {
    this.#open = false;
    while (this.#flushing) await this.#flushing;
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
    await this.#release?.();
    this.#release = undefined;
  }

  /**
   * `{"put": entry}` as JSON. The endpoints of one message are put one after the other with the same body: its JSON
   * (the longest part) is made once for them all.
   */
  #putLine(entry: OutboxEntry): string {
    if (entry.body !== this.#lastBody) {
      this.#lastBody = entry.body;
      this.#lastBodyJson = JSON.stringify(entry.body);
    }
    const { body, ...rest } = entry;
    return `{"put":${JSON.stringify(rest).slice(0, -1)},"body":${this.#lastBodyJson}}}`;
  }

  #closed(): Promise<void> {
    return Promise.reject(new Error(`the outbox in ${this.directory} is not open`));
  }

  /** The batch lines join now, started (with the flush that will write it) if there is none. */
  #next(): Batch {
    if (this.#batch) return this.#batch;
    let done!: () => void;
    let failed!: (error: unknown) => void;
    const written = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    // Nobody may be waiting for a batch of removals only: its failure is handled in the flush, not left unhandled.
    written.catch(() => undefined);
    this.#batch = { lines: [], puts: [], written, done, failed };
    this.#flushing ??= this.#flush();
    return this.#batch;
  }

  /** Writes the batches, one write and one fsync each, until none is left. */
  async #flush(): Promise<void> {
    // Let the lines of the current turn (a trigger's fan-out, a burst of triggers) join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let batch = this.#batch; batch !== undefined; batch = this.#batch) {
      this.#batch = undefined;
      try {
        const handle = this.#handle;
        if (!handle) throw new Error(`the outbox in ${this.directory} was closed`);
        const text = `${batch.lines.join('\n')}\n`;
        await handle.write(this.#torn ? `\n${text}` : text);
        this.#torn = false;
        // A removal need not be durable (lost in a crash, it only sends the delivery again, with its id): a batch of
        // removals only is left to the next put's fsync, which carries it to disk too.
        if (batch.puts.length > 0) await handle.datasync();
        this.#lines += batch.lines.length;
        batch.done();
      } catch (error) {
        this.#torn = true;
        for (const entry of batch.puts) if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
        batch.failed(error);
      }
      if (this.#lines > this.#entries.size + COMPACT_SLACK) await this.#compact().catch(() => undefined);
    }
    // In the same turn as the last look at #batch: a line appended from now on starts a new flush.
    this.#flushing = undefined;
  }

  /** Rewrites the journal with the waiting entries only, atomically, and reopens it for appending. */
  async #compact(): Promise<void> {
    const text = [...this.#entries.values()].map((entry) => `${JSON.stringify({ put: entry } satisfies Line)}\n`);
    await this.#handle?.close();
    this.#handle = undefined;
    await writeFileAtomic(this.#journal, Buffer.from(text.join(''), 'utf8'));
    this.#handle = await open(this.#journal, 'a', 0o600);
    this.#lines = this.#entries.size;
  }
}

function parseLine(raw: string): Line | undefined {
  if (raw.trim() === '') return undefined;
  try {
    const line = JSON.parse(raw) as Partial<{ put: unknown; remove: string }>;
    if (typeof line.remove === 'string') return { remove: line.remove };
    const entry = webhookOutboxEntry(line.put);
    if (entry) return { put: entry };
  } catch {
    // A line torn by a crash mid-write: its put never resolved, so nobody was told it was kept.
  }
  return undefined;
}
