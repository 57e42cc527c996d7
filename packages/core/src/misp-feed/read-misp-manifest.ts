import { checkJsonStructure } from '../http-server/json-structure.js';
import { isUuid } from '../stix/uuid-v5.js';
import { quoteForDisplay } from '../text/control-characters.js';
import type { SkipTally } from './feed-skips.js';

/** Deepest nesting a manifest or event file may have: MISP's own go about eight levels deep. */
const MAX_FEED_JSON_DEPTH = 64;

/** One event a MISP feed's `manifest.json` lists. */
export interface ManifestEvent {
  /** The UUID as the manifest writes it, checked: it names the event's file, `<uuid>.json`. */
  readonly uuid: string;
  /** The UUID in lower case: two spellings of one UUID are one event. */
  readonly id: string;
  /** The event's `timestamp` (seconds since the epoch): a newer one than the copy held means the event changed. */
  readonly timestamp: number;
}

/**
 * Reads a MISP feed's `manifest.json`: an object mapping each event's UUID to its summary (`info`, `Orgc`, `Tag`,
 * `date`, `analysis`, `threat_level_id`, `timestamp`), as MISP/MISP app/Model/Feed.php `getManifest` decodes it
 * and PyMISP's `MISPEvent.manifest` writes it. An entry whose key is not a UUID (MISP checks the same before it
 * builds a file name or URL from it, `downloadAndParseEventFromFeed`), that repeats an event, or whose `timestamp`
 * is not a whole number of seconds is skipped and counted in `skips`, never fetched. The newest `maxEvents`
 * entries are kept, by timestamp; the others are counted.
 *
 * @returns the events, newest first, or a problem when the text is not a manifest at all.
 */
export function readMispManifest(
  text: string,
  maxEvents: number,
  skips: SkipTally,
): { events: ManifestEvent[] } | { problem: string } {
  const fault = jsonFault(text);
  if (fault) return { problem: `manifest.json ${fault}` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `manifest.json is not JSON (${(error as Error).message})` };
  }
  // PHP's json_encode writes an empty manifest as [] when the array has no keys.
  if (Array.isArray(json) && json.length === 0) return { events: [] };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { problem: 'manifest.json is not an object of events keyed by their UUID' };
  }
  const events: ManifestEvent[] = [];
  const seen = new Set<string>();
  for (const [key, entry] of Object.entries(json)) {
    const shown = quoteForDisplay(key, 60);
    if (!isUuid(key)) {
      skips.add('manifest key is not a UUID', { event: shown });
      continue;
    }
    const id = key.toLowerCase();
    if (seen.has(id)) {
      skips.add('event listed twice in the manifest', { event: key });
      continue;
    }
    seen.add(id);
    const timestamp = secondsOf((entry as { timestamp?: unknown } | null)?.timestamp);
    if (timestamp === undefined) {
      skips.add('manifest entry has no valid timestamp', { event: key });
      continue;
    }
    events.push({ uuid: key, id, timestamp });
  }
  events.sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? -1 : 1));
  for (const dropped of events.splice(maxEvents)) {
    skips.add('over maxEvents', { event: dropped.uuid }, `the feed lists more than ${maxEvents} events`);
  }
  return { events };
}

/** Seconds since the epoch as MISP writes them: a whole number, or its decimal digits in a string. */
export function secondsOf(value: unknown): number | undefined {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * What is wrong with a feed file's JSON structure, checked before it is parsed: nesting deeper than
 * {@link MAX_FEED_JSON_DEPTH}, or an object with a key twice (which JSON.parse would silently resolve).
 */
export function jsonFault(text: string): string | undefined {
  const fault = checkJsonStructure(text, MAX_FEED_JSON_DEPTH);
  if (fault === undefined) return undefined;
  if (fault.kind === 'too-deep') return `is nested deeper than ${fault.limit} levels`;
  return `has the key ${quoteForDisplay(fault.key, 60)} twice in one object`;
}
