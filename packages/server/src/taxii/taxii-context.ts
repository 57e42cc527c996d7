import { stixTimestamp } from '@threatlib/core/integration';
import type { FastifyReply } from 'fastify';
import type { StoredObject } from './object-store.js';
import { type PageCursors, queryDigest } from './page-cursor.js';
import type { StatusStore } from './status-store.js';
import type { TaxiiCollection } from './taxii-collection.js';
import { TaxiiError } from './taxii-error.js';
import type { ResolvedTaxiiOptions } from './taxii-options.js';
import type { TaxiiQuery } from './taxii-query.js';

/** Most bytes of objects on one page: a page ends early, with `more` and `next`, rather than pass it. */
const PAGE_BYTES = 8 * 1024 * 1024;

/** What every TAXII route works with. */
export interface TaxiiContext {
  readonly options: ResolvedTaxiiOptions;
  /** The prefix the TAXII server is mounted under (`/taxii2`). */
  readonly prefix: string;
  readonly collections: readonly TaxiiCollection[];
  readonly statuses: StatusStore;
  readonly cursors: PageCursors;
}

/**
 * The collection a path names, by id or alias, when the request may use it: reading needs `can_read`, writing
 * `can_write`.
 *
 * @throws {TaxiiError} 404 when there is no such collection, 403 when it may not be read (or written).
 */
export function collectionFor(context: TaxiiContext, name: string, access: 'read' | 'write'): TaxiiCollection {
  const collection = context.collections.find((c) => c.id === name || c.alias === name);
  if (collection === undefined) {
    throw new TaxiiError(
      404,
      'Collection not found',
      `this API root has no collection ${JSON.stringify(name.slice(0, 80))}; GET its collections/ to list them`,
    );
  }
  if (access === 'read' && !collection.canRead) {
    throw new TaxiiError(403, 'Forbidden', `the collection ${collection.id} may not be read`);
  }
  if (access === 'write' && !collection.canWrite) {
    throw new TaxiiError(403, 'Forbidden', `the collection ${collection.id} is read-only (can_write is false)`);
  }
  return collection;
}

/**
 * One page of a query: the records after the `next` cursor's position (checked against the query it was issued
 * for), and the cursor of the page after it when more follow.
 *
 * @param route names what is paged (`objects`, `manifest`, `object:<id>`, `versions:<id>`): a cursor is bound to it.
 */
export function readPage(
  context: TaxiiContext,
  collection: TaxiiCollection,
  query: TaxiiQuery,
  route: string,
  id?: string,
): { records: readonly StoredObject[]; more: boolean; next?: string } {
  const digest = queryDigest([route, collection.id, query.canonical]);
  const after = query.next === undefined ? undefined : context.cursors.read(query.next, digest);
  const page = collection.store.page(query, after, { ...(id === undefined ? {} : { id }), maxBytes: PAGE_BYTES });
  const last = page.records.at(-1);
  return {
    records: page.records,
    more: page.more,
    ...(page.more && last ? { next: context.cursors.issue({ query: digest, after: last.dateAdded }) } : {}),
  };
}

/** Sets X-TAXII-Date-Added-First and -Last from a page's first and last records (TAXII 2.1 section 3.3.1). */
export function dateAddedHeaders(reply: FastifyReply, records: readonly StoredObject[]): void {
  const first = records[0];
  const last = records.at(-1);
  if (first === undefined || last === undefined) return;
  reply.header('x-taxii-date-added-first', stixTimestamp(first.dateAdded));
  reply.header('x-taxii-date-added-last', stixTimestamp(last.dateAdded));
}
