import type * as z from 'zod';
import { formatPath } from '../config/format-path.js';
import type { ConfigurationIssue } from '../errors/configuration-error.js';
import { ValidationError } from '../errors/validation-error.js';

/** Zod's issues as `{path, message}` pairs, one per offending field (an unknown key is its own path). */
export function recordIssues(issues: readonly z.core.$ZodIssue[]): ConfigurationIssue[] {
  return issues.flatMap((issue) => {
    const base = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: 'unknown field' }));
    }
    return [{ path: base || '(root)', message: issue.message }];
  });
}

/**
 * Validates `value` against a record schema and returns what the schema makes of it.
 *
 * @throws {ValidationError} `Invalid <subject>: <path>: <reason>; ...`, naming every field that is wrong.
 */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(subject, recordIssues(result.error.issues));
}
