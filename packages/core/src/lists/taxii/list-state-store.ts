import { utf8Bytes } from '../../bytes/host-bytes.js';
import { defaultFileCacheDirectory } from '../../cache/default-directory.js';
import { RuntimeUnsupportedError } from '../../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../../runtime/node-builtin.js';
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

/** What state files use of `node:fs/promises`, `node:path` (declared here: the module also loads in a page). */
interface NodeFs {
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<unknown>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
}
interface NodePath {
  dirname(path: string): string;
  join(...parts: string[]): string;
}

/**
 * The file system a state file needs, taken through `process.getBuiltinModule` so that a page that imports the client
 * loads; there, a state file is refused when it is read or written.
 */
function fileSystem(): { fs: NodeFs; path: NodePath } {
  const fs = nodeBuiltin<NodeFs>('node:fs/promises');
  const path = nodeBuiltin<NodePath>('node:path');
  if (!fs || !path) {
    throw new RuntimeUnsupportedError(
      'list state file',
      'a TAXII list keeps its state in a file, which needs Node.js: in a page the list holds what it polled until ' +
        'the page is closed, and polls its collection from the start when the page loads again',
    );
  }
  return { fs, path };
}

/**
 * The state file of the TAXII list `name` when none is configured: `lists/<name>.taxii.json` in `cacheDirectory`
 * (`caching.filesystem.directory`), by default the file cache's directory. In a page, where no file is opened, the
 * same path with `/` (it names the store in log lines and in the list's status).
 */
export function defaultStateFile(name: string, cacheDirectory: string | undefined): string {
  const parts = ['lists', `${encodeURIComponent(name)}.taxii.json`];
  const path = nodeBuiltin<NodePath>('node:path');
  const directory = cacheDirectory ?? defaultFileCacheDirectory() ?? 'threatlib-cache';
  return path ? path.join(directory, ...parts) : [directory, ...parts].join('/');
}

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

  /** @throws {RuntimeUnsupportedError} in a page. */
  async load(): Promise<ListState | undefined> {
    const { fs } = fileSystem();
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
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

  /** @throws {RuntimeUnsupportedError} in a page. */
  async save(state: ListState): Promise<void> {
    const { fs, path } = fileSystem();
    await fs.mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, utf8Bytes(JSON.stringify(state)));
  }
}
