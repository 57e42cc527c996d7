// The options of a document-store query (`limit`, `sort`), checked before anything is sent.
import { ValidationError } from '@threatlib/core';

/** Options of {@link DocumentStoreStorage.query}. */
export interface DocumentQueryOptions {
  /** Most records to return (default and cap: the store's `maxResults`). */
  limit?: number;
  /** Field paths to sort by, 1 ascending or -1 descending, in order: `{scanDate: -1}`. */
  sort?: Record<string, 1 | -1>;
}

/** The limit of a query: `limit` when it is a whole number from 1, at most `max`; `max` without one. */
export function queryLimit(limit: unknown, max: number): number {
  if (limit === undefined) return max;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    throw new ValidationError('query options', [
      { path: 'limit', message: `expected a whole number from 1 to ${max}` },
    ]);
  }
  return Math.min(limit, max);
}

/** The sort of a query: up to 8 field paths, each 1 or -1. */
export function querySort(sort: unknown): Record<string, 1 | -1> | undefined {
  if (sort === undefined) return undefined;
  if (typeof sort !== 'object' || sort === null || Array.isArray(sort)) {
    throw new ValidationError('query options', [
      { path: 'sort', message: 'expected an object such as {"scanDate": -1}' },
    ]);
  }
  const entries = Object.entries(sort);
  if (entries.length > 8) throw new ValidationError('query options', [{ path: 'sort', message: 'at most 8 fields' }]);
  for (const [field, direction] of entries) {
    if (
      !/^[^$.\0][^$\0]{0,511}$/.test(field) ||
      field.split('.').some((segment) => segment === '' || segment.startsWith('$'))
    ) {
      throw new ValidationError('query options', [{ path: `sort.${field}`, message: 'expected a field path' }]);
    }
    if (direction !== 1 && direction !== -1) {
      throw new ValidationError('query options', [{ path: `sort.${field}`, message: 'expected 1 or -1' }]);
    }
  }
  return Object.fromEntries(entries) as Record<string, 1 | -1>;
}
