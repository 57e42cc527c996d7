/**
 * The top-level fields of stored records that hold dates: given as ISO 8601 strings (in a record or a filter), they
 * are stored and compared as dates. Only top-level fields: a date inside `results` keeps the form it was given in.
 */
export const DATE_FIELDS: ReadonlySet<string> = new Set([
  'scanDate',
  'expiresAt',
  'firstSeen',
  'lastSeen',
  'createdAt',
  'updatedAt',
  'startedAt',
  'endedAt',
  'processedAt',
  'detectedAt',
]);

// An ISO 8601 date-time (or a calendar date): what `Date.prototype.toISOString` writes and JSON carries.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** `value` as a `Date` when it is a valid `Date` or an ISO 8601 string; undefined otherwise. */
export function asDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
