/** The value of `logging.filters`. */
export interface LogFilters {
  /** Feeds whose lines are dropped, by id (`feed_otx`) or by the id without its `feed_` prefix (`otx`). */
  excludeFeeds: readonly string[];
  /** When not empty, only lines of these categories are kept (lines without a category are dropped too). */
  includeOnly: readonly string[];
}

/** Decides from a line's `category` and `feed` fields whether it is written. */
export type LineFilter = (category: unknown, feed: unknown) => boolean;

/**
 * The filter `logging.filters` describes, or `undefined` when it keeps every line (so the hot path does not even
 * call it).
 *
 * @example
 * ```ts
 * const keep = lineFilter({ excludeFeeds: ['otx'], includeOnly: ['feed', 'vault'] });
 * keep('feed', 'feed_otx'); // false
 * keep('vault', undefined); // true
 * ```
 */
export function lineFilter(filters: LogFilters): LineFilter | undefined {
  const excluded = new Set<unknown>();
  for (const feed of filters.excludeFeeds) {
    excluded.add(feed);
    excluded.add(feed.startsWith('feed_') ? feed.slice('feed_'.length) : `feed_${feed}`);
  }
  const included = new Set<unknown>(filters.includeOnly);
  if (excluded.size === 0 && included.size === 0) return undefined;
  return (category, feed) => {
    if (included.size > 0 && !included.has(category)) return false;
    return feed === undefined || !excluded.has(feed);
  };
}
