import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isUuid } from '../stix/uuid-v5.js';
import { writeFileAtomic } from '../vault/atomic-write.js';
import { type MispFeedInput, type ToMispFeedOptions, toMispFeed } from './to-misp-feed.js';

/** Options of {@link exportMispFeed}: those of `toMispFeed`, and the files' mode. */
export interface ExportMispFeedOptions extends ToMispFeedOptions {
  /** The mode of the files written (default 0o644: a feed is published, a web server reads it). */
  readonly fileMode?: number;
}

/** What {@link exportMispFeed} wrote. */
export interface ExportMispFeedResult {
  /** The directory, absolute. */
  readonly directory: string;
  /** Events in the feed. */
  readonly events: number;
  /** Attributes in them. */
  readonly attributes: number;
  /** The files written, in the order they were: the events, `hashes.csv`, `manifest.json`. */
  readonly files: readonly string[];
  /** Event files of the previous export that this one no longer lists, removed. */
  readonly removed: readonly string[];
}

/**
 * Writes correlations and alerts as a MISP feed into `directory` (made if missing): one `<uuid>.json` per event,
 * `hashes.csv` and `manifest.json`, as {@link toMispFeed} makes them, for MISP (a feed of input source "local", or
 * served by any web server as a "network" feed), PyMISP, or threatlib's own `lists: [{misp: {...}}]`.
 *
 * The input is checked whole before anything is written. Each file is replaced atomically (a temporary file renamed
 * over it), the events first and the manifest last, so a reader never sees a half-written file nor a manifest
 * naming an event file not yet there. The export replaces the previous one: event files the previous manifest
 * listed and this one does not are removed once the new manifest is in place. One export at a time per directory.
 *
 * @throws {@link ValidationError} naming each input that cannot be written (nothing is written then).
 *
 * @example
 * ```ts
 * import { exportMispFeed } from '@threatlib/core/misp';
 * const { items } = await client.alerts.list({ limit: 500 });
 * const { events } = await exportMispFeed(items, '/srv/www/feeds/threatlib', { tags: ['tlp:green'] });
 * ```
 */
export async function exportMispFeed(
  items: Iterable<MispFeedInput>,
  directory: string,
  options: ExportMispFeedOptions = {},
): Promise<ExportMispFeedResult> {
  const feed = toMispFeed(items, options);
  const root = resolve(directory);
  await mkdir(root, { recursive: true });
  const previous = await listedEvents(root);
  const mode = options.fileMode ?? 0o644;
  for (const file of feed.files) await writeFileAtomic(join(root, file.name), Buffer.from(file.text, 'utf8'), mode);
  const removed: string[] = [];
  for (const uuid of previous) {
    if (Object.hasOwn(feed.manifest, uuid)) continue;
    const name = `${uuid}.json`;
    await rm(join(root, name), { force: true });
    removed.push(name);
  }
  return {
    directory: root,
    events: feed.events.length,
    attributes: feed.events.reduce((sum, event) => sum + event.Event.Attribute.length, 0),
    files: feed.files.map((file) => file.name),
    removed,
  };
}

/** The event UUIDs the manifest already in `root` lists (none when there is none, or it is not one). */
async function listedEvents(root: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(root, 'manifest.json'), 'utf8');
  } catch {
    return [];
  }
  try {
    const manifest = JSON.parse(text) as unknown;
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) return [];
    // Only UUIDs name files this function may remove: a key such as ../x never becomes a path.
    return Object.keys(manifest).filter(isUuid);
  } catch {
    return [];
  }
}
