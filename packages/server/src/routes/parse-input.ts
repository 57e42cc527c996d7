import type { z } from 'zod';
import { validationProblem } from '../http/problem.js';
import { reportedIssues } from '../http/validation-issues.js';

/**
 * `value` (a body, a query, path parameters) checked against `schema`; a 400 validation problem naming `subject` and
 * each issue otherwise.
 */
export function parse<T extends z.ZodType>(schema: T, value: unknown, subject: string): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw validationProblem(subject, reportedIssues(result.error.issues));
}
