/** A page as stores answer a listing: items in order, and a cursor for the next page when there is one. */
export interface CursorPage<T> {
  items: T[];
  nextCursor?: string;
}

/** The most bytes a page of `GET /alerts` answers with unless the server is told otherwise (1 MiB). */
export const DEFAULT_PAGE_BYTES = 1024 * 1024;

/** Room for `{"items":[`, `]` and `,"nextCursor":"..."}` around the items. */
const ENVELOPE_BYTES = 256;

/**
 * A listing's page as JSON text of at most `maxBytes` (UTF-8): items are added in order until the next one would
 * pass the budget; the page then ends there, with a `nextCursor` to go on from. A page always holds at least one
 * item, however large, so paging always moves on.
 *
 * `list(limit)` asks the store for the first `limit` items from the same cursor and filters. When the page is cut
 * short the store is asked again for exactly the items that fit, so the cursor it gives is its own (cursors are
 * opaque and differ between stores); the items serialised for the first answer are reused when the store hands
 * back the same objects, as the memory store does.
 */
export async function pageWithinBudget<T>(
  list: (limit: number) => Promise<CursorPage<T>>,
  limit: number,
  maxBytes: number,
): Promise<string> {
  const first = await list(limit);
  const serialised = new Map<T, string>();
  const fit = fitting(first.items, maxBytes, serialised);
  if (fit === first.items.length) return envelope(first.items, first.nextCursor, serialised);
  const page = await list(fit);
  return envelope(page.items, page.nextCursor, serialised);
}

/** How many of `items`, from the first, fit in `maxBytes` (at least one); each one's JSON is kept in `serialised`. */
function fitting<T>(items: readonly T[], maxBytes: number, serialised: Map<T, string>): number {
  let bytes = ENVELOPE_BYTES;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    const json = JSON.stringify(item);
    bytes += Buffer.byteLength(json, 'utf8') + 1;
    if (bytes > maxBytes && i > 0) return i;
    serialised.set(item, json);
  }
  return items.length;
}

function envelope<T>(items: readonly T[], nextCursor: string | undefined, serialised: Map<T, string>): string {
  const parts = items.map((item) => serialised.get(item) ?? JSON.stringify(item));
  const cursor = nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(nextCursor)}`;
  return `{"items":[${parts.join(',')}]${cursor}}`;
}
