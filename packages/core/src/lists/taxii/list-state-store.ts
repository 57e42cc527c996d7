import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../vault/atomic-write.js';

/** The state a list source keeps between runs: JSON, its shape the source's own. */
export type ListState = Readonly<Record<string, unknown>>;

/**
 * Where a list source that is fed over the network (a TAXII collection) keeps its state between runs: its position
 * and what it holds. Core keeps it in a file ({@link FileListStateStore}); an integration may offer a store of its
 * own (`Integration.listStateStore(name)`, such as a database that several instances share), and a browser build
 * one on IndexedDB.
 */
export interface ListStateStore {
  /** Where the state is kept, for log lines and errors. */
  readonly where: string;
  /** The state last saved, or undefined when none was. @throws when the store cannot be read. */
  load(): Promise<ListState | undefined>;
  /** Replaces the saved state, atomically: a crash leaves the old state or the new one. */
  save(state: ListState): Promise<void>;
}

/** Largest state file read back (the state of a million indicators is about 250 MB). */
const MAX_STATE_BYTES = 512 * 1024 * 1024;

/**
 * A {@link ListStateStore} in one JSON file, written atomically (a temporary file renamed over it) with mode 0600;
 * its directory is made when missing.
 */
export class FileListStateStore implements ListStateStore {
  readonly where: string;
  /** The file. */
  readonly path: string;

  constructor(path: string) {
    this.path = path;
    this.where = path;
  }

  async load(): Promise<ListState | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    }
    if (text.length > MAX_STATE_BYTES) throw new Error(`${this.path} is larger than ${MAX_STATE_BYTES} bytes`);
    const state: unknown = JSON.parse(text);
    if (typeof state !== 'object' || state === null || Array.isArray(state)) {
      throw new Error(`${this.path} does not hold a state object`);
    }
    return state as ListState;
  }

  async save(state: ListState): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, Buffer.from(JSON.stringify(state), 'utf8'));
  }
}
