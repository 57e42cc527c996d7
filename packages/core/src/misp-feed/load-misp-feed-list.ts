import type * as z from 'zod';
import { formatPath } from '../config/format-path.js';
import { mispFeedListSchema } from '../config/misp-feed-list-schema.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { ListLoadError } from '../lists/list-load-error.js';
import { LOCAL_LIST_MATCH_MODES, type LocalListMatchMode, type LocalListVerdict } from '../lists/local-list.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import { httpTransport } from './http-transport.js';
import { MispFeedList } from './misp-feed-list.js';
import type { MispFeedTransport } from './misp-feed-transport.js';

const VERDICTS: readonly LocalListVerdict[] = ['malicious', 'suspicious', 'clean'];
// The options of the list around the feed; every other key goes to the schema, which names an unknown one.
const LIST_OPTION_KEYS: ReadonlySet<string> = new Set([
  'name',
  'verdict',
  'match',
  'enforceHttps',
  'validateCertificates',
  'http',
  'clock',
  'logger',
]);

/**
 * Where a MISP feed list's feed is and how it is read: the `misp` options of a configured list (`url` or
 * `directory`, `headers`, `pollInterval`, `timeout`, `toIdsOnly`, `maxEvents`, `maxEventBytes`, `maxManifestBytes`,
 * `maxEntries`), with the list's `name`, `verdict` and `match`.
 */
export interface MispFeedListOptions extends z.input<typeof mispFeedListSchema> {
  /** Names the list in evidence and in its source id, `list:<name>`. */
  readonly name: string;
  /** The verdict for a listed indicator. Default `malicious`. */
  readonly verdict?: LocalListVerdict;
  /** How entries match, as for a local list: `host` (default) or `exact`. */
  readonly match?: LocalListMatchMode;
  /** Refuse a `url` that is not HTTPS (default true, as `security.enforceHttps`). */
  readonly enforceHttps?: boolean;
  /** Verify TLS certificates of an own HTTP client (default true). Ignored when `http` is given. */
  readonly validateCertificates?: boolean;
  /** The HTTP client to read a `url` feed with (the list makes its own, closed by `close()`, when absent). */
  readonly http?: HttpClient;
  /** Time for polling (tests pass a `ManualClock`). */
  readonly clock?: Clock;
  /** Where reads and what they skipped are logged. */
  readonly logger?: Logger;
}

/**
 * Reads a MISP feed (a directory, or the base URL of a feed served over HTTP(S)) as a local list, and keeps reading
 * it every `pollInterval` (default one hour) until `close()`. See {@link MispFeedList} for what becomes an entry, and
 * the core README, "MISP feeds", for the format and what is skipped.
 *
 * @throws {@link ListLoadError} when the options are invalid, or the manifest cannot be read or is not a manifest.
 * @throws {InsecureEndpointError} for an http:// `url` while `enforceHttps` is on.
 *
 * @example
 * ```ts
 * const osint = await loadMispFeedList({ name: 'circl-osint', url: 'https://www.circl.lu/doc/misp/feed-osint' });
 * osint.lookup(parseIndicator('198.51.100.7')); // { status: 'ok', verdict: 'malicious', evidence: [...] } when listed
 * osint.status(); // { events, entries, skippedEvents, skippedAttributes, lastRefresh, ... }
 * await osint.close();
 * ```
 */
export async function loadMispFeedList(options: MispFeedListOptions): Promise<MispFeedList> {
  const { name, verdict = 'malicious', match = 'host', enforceHttps = true, http, clock, logger } = options;
  const source = typeof name === 'string' ? `MISP feed list ${JSON.stringify(name)}` : 'MISP feed list';
  if (typeof name !== 'string' || name.trim() === '') throw new ListLoadError(source, 'a list needs a name');
  if (!VERDICTS.includes(verdict)) {
    throw new ListLoadError(source, `unknown verdict ${JSON.stringify(verdict)} (expected ${VERDICTS.join(', ')})`);
  }
  if (!(LOCAL_LIST_MATCH_MODES as readonly string[]).includes(match)) {
    throw new ListLoadError(source, `unknown match ${JSON.stringify(match)} (expected host or exact)`);
  }
  // Only the feed's own options go through the schema, which refuses any other key.
  const feed = Object.fromEntries(Object.entries(options).filter(([key]) => !LIST_OPTION_KEYS.has(key)));
  const parsed = mispFeedListSchema.safeParse(feed);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${formatPath(issue.path) || '(options)'}: ${issue.message}`);
    throw new ListLoadError(source, problems.join('; '));
  }
  const config = parsed.data;
  let own: HttpClient | undefined;
  let transport: MispFeedTransport;
  if (config.url !== undefined) {
    checkEndpoint(config.url, `MISP feed list ${JSON.stringify(name)} url`, { enforceHttps });
    own =
      http === undefined ? createHttpClient({ validateCertificates: options.validateCertificates ?? true }) : undefined;
    transport = httpTransport(http ?? (own as HttpClient), {
      url: config.url,
      timeoutMs: config.timeout,
      ...(config.headers ? { headers: config.headers } : {}),
    });
  } else {
    // Loaded here, on first use: a feed read from a directory needs Node.js, one read over HTTP does not.
    const { directoryTransport } = await import('./directory-transport.js');
    transport = directoryTransport(config.directory as string);
  }
  const list = new MispFeedList({
    name,
    verdict,
    match,
    transport,
    limits: config,
    ...(clock ? { clock } : {}),
    ...(logger ? { logger } : {}),
    ...(own ? { release: () => (own as HttpClient).close() } : {}),
  });
  try {
    await list.refresh();
  } catch (error) {
    await list.close();
    throw error;
  }
  list.start();
  return list;
}
