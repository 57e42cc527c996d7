import * as z from 'zod';
import { headersSchema } from '../http/header-fields.js';

const MIB = 1024 * 1024;
const MINUTE = 60_000;

const bytes = (min: number, max: number, fallback: number) =>
  z
    .int({ error: 'expected a whole number of bytes' })
    .min(min, { error: `at least ${min} bytes` })
    .max(max, { error: `at most ${max} bytes (${max / MIB} MiB)` })
    .default(fallback);

/**
 * The `misp` options of a list read from a MISP feed: `lists: [{name, misp: {...}, verdict?, match?, weight?}]`.
 * The feed is a directory (`directory`) or a URL (`url`) holding `manifest.json` and one `<uuid>.json` per event, as
 * MISP and PyMISP's feed generator publish them. See the core README, "MISP feeds".
 */
export const mispFeedListSchema = z
  .strictObject({
    /**
     * The feed's base URL, the one MISP's feed settings take: `<url>/manifest.json` and `<url>/<uuid>.json` are read
     * from it. http(s) only, no query, fragment or credentials (use `headers`); `security.enforceHttps` applies.
     */
    url: z.string().optional(),
    /** A local directory holding the feed (relative paths resolve against the working directory). */
    directory: z.string().min(1, { error: 'must not be empty' }).optional(),
    /**
     * Sent with every request of a `url` feed (MISP's feed "headers": `Authorization: <key>` for a MISP instance's
     * own feeds, basic credentials, …). Never logged, never put in an error or a status.
     */
    headers: headersSchema.optional(),
    /**
     * How often the feed is read again, in ms (default 3600000, one hour): the manifest, then only the events whose
     * manifest timestamp changed. 0 reads it once, when the client loads its lists. At least one minute otherwise.
     */
    pollInterval: z
      .int({ error: 'expected a whole number of ms' })
      .min(0)
      .max(7 * 24 * 60 * MINUTE, { error: 'at most 7 days (604800000 ms)' })
      .refine((ms) => ms === 0 || ms >= MINUTE, { error: 'expected 0 (read once) or at least 60000 ms (one minute)' })
      .default(60 * MINUTE),
    /** Longest wait for one file of the feed, in ms (default 30000). */
    timeout: z.int({ error: 'expected a whole number of ms' }).min(1).max(600_000).default(30_000),
    /**
     * Only attributes whose `to_ids` flag is set become entries (default true, as MISP's own exports for detection
     * do); the others are skipped and counted. False takes every attribute of a type threatlib looks up.
     */
    toIdsOnly: z.boolean().default(true),
    /** Most events read (default 10000): beyond it the newest are kept, by manifest timestamp, the rest counted. */
    maxEvents: z.int().min(1).max(1_000_000).default(10_000),
    /** Largest event file read, in bytes (default 16 MiB); a larger one is skipped and counted. */
    maxEventBytes: bytes(1024, 256 * MIB, 16 * MIB),
    /** Largest `manifest.json` read, in bytes (default 32 MiB); a larger one fails the read. */
    maxManifestBytes: bytes(1024, 256 * MIB, 32 * MIB),
    /** Most entries the list holds (default 1000000); attributes beyond it, oldest events first, are counted. */
    maxEntries: z.int().min(1).max(10_000_000).default(1_000_000),
  })
  .superRefine((options, ctx) => {
    if ((options.url === undefined) === (options.directory === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give either url (a feed served over HTTP) or directory (a feed on disk), not both or neither',
      });
    }
    if (options.url !== undefined) {
      const problem = feedUrlProblem(options.url);
      if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
    }
    if (options.headers !== undefined && options.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['headers'], message: 'headers go with a url feed; a directory has none' });
    }
  });

/** The resolved `misp` options of a list. */
export type MispFeedListConfig = z.output<typeof mispFeedListSchema>;

/** Why `text` cannot be a MISP feed's base URL, or undefined when it can. Never quotes credentials. */
function feedUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'expected an absolute http(s) URL (the directory of the feed, holding manifest.json)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `expected an http(s) URL, got ${url.protocol}; use directory for a feed on disk`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not carry credentials (user:password@); send them in headers, which are never logged';
  }
  if (url.search !== '' || url.hash !== '') {
    return 'must not have a query or fragment: <url>/manifest.json and <url>/<uuid>.json are read from it';
  }
  return undefined;
}
