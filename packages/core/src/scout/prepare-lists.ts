import type { ResolvedConfig } from '../config/schema.js';
import type { HttpClient } from '../http/http-client.js';
import { loadLocalList } from '../lists/local-list.js';
import { TaxiiListSource } from '../lists/taxii/taxii-list-source.js';
import { WarninglistSet } from '../lists/warninglist-set.js';
import { type Logger, silentLogger } from '../logging/logger.js';
import { loadMispFeedList } from '../misp-feed/load-misp-feed-list.js';
import type { Clock } from '../scheduler/clock.js';
import type { LocalSource, Prefilter } from './scout-engine.js';

/** What lists read from elsewhere than a file need from the client. */
export interface PrepareListsDeps {
  /** The client's HTTP client, asked for only when a list reads a feed over HTTP. */
  http?: () => HttpClient;
  clock?: Clock;
}

/**
 * Loads the warninglists and local lists a configuration names (relative paths resolve against the working
 * directory). A list with lines it could not use is loaded anyway, and the skipped lines are logged, so a typo
 * in a list is seen rather than silently dropped. A list read from a MISP feed (`misp`) is read whole now, then
 * polled until it is closed (the client closes its lists on `stop()`). A list fed by a TAXII collection (`taxii`) is
 * made empty here: its `ready()` loads its saved state and polls (the client calls it once the integrations that may
 * keep that state run, or at the first lookup), `start()` polls on, `close()` stops.
 *
 * @throws {ListLoadError} naming the first file that cannot be loaded.
 */
export async function prepareLists(
  config: ResolvedConfig,
  logger?: Logger,
  deps: PrepareListsDeps = {},
): Promise<{ prefilter: Prefilter; lists: LocalSource[] }> {
  const loading = config.lists.map((list): Promise<LocalSource> => {
    if (list.taxii !== undefined) {
      return Promise.resolve(
        new TaxiiListSource({
          name: list.name,
          verdict: list.verdict,
          ...(list.match === undefined ? {} : { match: list.match }),
          taxii: list.taxii,
          ...(deps.clock ? { clock: deps.clock } : {}),
          logger: logger ?? silentLogger,
          validateCertificates: config.security.validateCertificates,
          ...(config.caching.filesystem.directory === undefined
            ? {}
            : { cacheDirectory: config.caching.filesystem.directory }),
        }),
      );
    }
    if (list.misp !== undefined) {
      return loadMispFeedList({
        ...list.misp,
        name: list.name,
        verdict: list.verdict,
        ...(list.match === undefined ? {} : { match: list.match }),
        enforceHttps: config.security.enforceHttps,
        ...(list.misp.url !== undefined && deps.http ? { http: deps.http() } : {}),
        ...(deps.clock ? { clock: deps.clock } : {}),
        ...(logger ? { logger } : {}),
      });
    }
    return loadLocalList({
      name: list.name,
      // The schema requires a file when the list has no other source.
      file: list.file as string,
      format: list.format,
      verdict: list.verdict,
      ...(list.column === undefined ? {} : { column: list.column }),
      ...(list.match === undefined ? {} : { match: list.match }),
    }).then((loaded) => {
      logger?.info(
        { list: loaded.name, entries: loaded.entries, skipped: loaded.skipped },
        `local list "${loaded.name}" loaded`,
      );
      if (loaded.skipped > 0) {
        logger?.warn(
          { list: loaded.name, skipped: loaded.skipped, firstSkipped: loaded.firstSkipped },
          `local list "${loaded.name}": ${loaded.skipped} lines were not indicators and were skipped`,
        );
      }
      return loaded;
    });
  });
  const [prefilter, settled] = await Promise.all([
    WarninglistSet.fromConfig({ builtin: config.warninglists.builtin, files: config.warninglists.files }).catch(
      async (error: unknown) => {
        await Promise.allSettled(loading.map((list) => list.then((loaded) => loaded.close?.())));
        throw error;
      },
    ),
    Promise.allSettled(loading),
  ]);
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    // A list that did load must not keep polling for a client that has none.
    await Promise.all(settled.map((result) => (result.status === 'fulfilled' ? result.value.close?.() : undefined)));
    throw failure.reason;
  }
  return { prefilter, lists: settled.map((result) => (result as PromiseFulfilledResult<LocalSource>).value) };
}
