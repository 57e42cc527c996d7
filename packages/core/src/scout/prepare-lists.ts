import type { ResolvedConfig } from '../config/schema.js';
import { loadLocalList } from '../lists/local-list.js';
import { WarninglistSet } from '../lists/warninglist-set.js';
import type { Logger } from '../logging/logger.js';
import type { LocalSource, Prefilter } from './scout-engine.js';

/**
 * Loads the warninglists and local lists a configuration names (relative paths resolve against the working
 * directory). A list with lines it could not use is loaded anyway, and the skipped lines are logged, so a typo
 * in a list is seen rather than silently dropped.
 *
 * @throws {ListLoadError} naming the first file that cannot be loaded.
 */
export async function prepareLists(
  config: ResolvedConfig,
  logger?: Logger,
): Promise<{ prefilter: Prefilter; lists: LocalSource[] }> {
  const [prefilter, lists] = await Promise.all([
    WarninglistSet.fromConfig({ builtin: config.warninglists.builtin, files: config.warninglists.files }),
    Promise.all(
      config.lists.map((list) =>
        loadLocalList({
          name: list.name,
          file: list.file,
          format: list.format,
          verdict: list.verdict,
          ...(list.column === undefined ? {} : { column: list.column }),
          ...(list.match === undefined ? {} : { match: list.match }),
        }),
      ),
    ),
  ]);
  for (const list of lists) {
    logger?.info({ list: list.name, entries: list.entries, skipped: list.skipped }, `local list "${list.name}" loaded`);
    if (list.skipped > 0) {
      logger?.warn(
        { list: list.name, skipped: list.skipped, firstSkipped: list.firstSkipped },
        `local list "${list.name}": ${list.skipped} lines were not indicators and were skipped`,
      );
    }
  }
  return { prefilter, lists };
}
