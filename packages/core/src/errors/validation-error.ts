import type { ConfigurationIssue } from './configuration-error.js';
import { ThreatlibError } from './threatlib-error.js';

/**
 * Thrown when data handed to the library (an alert, a query, a message) is not of the expected shape. The message
 * reads `Invalid <subject>: path: reason; ...`.
 */
export class ValidationError extends ThreatlibError {
  /** What was being validated (`alert`, `alert query`). */
  readonly subject: string;
  /** Every problem found. */
  readonly issues: readonly ConfigurationIssue[];

  constructor(subject: string, issues: readonly ConfigurationIssue[]) {
    const text = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
    super('VALIDATION_FAILED', `Invalid ${subject}: ${text}`);
    this.name = 'ValidationError';
    this.subject = subject;
    this.issues = issues;
  }

  /** Whether `error` is a {@link ValidationError}, from any copy of the package. */
  static override isInstance(error: unknown): error is ValidationError {
    return ThreatlibError.hasCode(error, 'VALIDATION_FAILED');
  }
}
