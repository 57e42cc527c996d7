import { ValidationError } from '../errors/validation-error.js';
import { SEVERITIES } from '../records/severity.js';

/**
 * The rank (0 for `informational` .. 4 for `critical`) of a severity an alert query names, in `minSeverity` or
 * `severity`, in any case: what every `AlertStore`'s `list` and `pending` compare alerts' severities with.
 *
 * @param path the query's field, named in the error.
 * @throws {ValidationError} `Invalid alert query: minSeverity: expected one of informational, low, medium, high,
 *   critical, got "urgent"` for anything else.
 *
 * @example
 * ```ts
 * const minRank = query.minSeverity === undefined ? undefined : querySeverityRank(query.minSeverity);
 * ```
 */
export function querySeverityRank(severity: unknown, path: 'minSeverity' | 'severity' = 'minSeverity'): number {
  const rank = typeof severity === 'string' ? SEVERITIES.indexOf(severity.toLowerCase() as never) : -1;
  if (rank < 0) {
    throw new ValidationError('alert query', [
      { path, message: `expected one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(severity)}` },
    ]);
  }
  return rank;
}
