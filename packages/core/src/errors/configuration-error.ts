import { ThreatlibError } from './threatlib-error.js';

/** One problem found in a configuration: where it is and what is wrong with it. */
export interface ConfigurationIssue {
  /** Dotted path of the offending option (`performance.maxConcurrency`), or an environment variable's name. */
  path: string;
  /** What is wrong, in words a user can act on. */
  message: string;
}

/**
 * Thrown when a configuration cannot be used. The message starts with `Configuration invalid: ` and then lists
 * every problem as `path: reason`, separated by `; `.
 */
export class ConfigurationError extends ThreatlibError {
  /** Every problem found, in the order the schema reported them. */
  readonly issues: readonly ConfigurationIssue[];

  constructor(issues: readonly ConfigurationIssue[], options: { cause?: unknown } = {}) {
    const text = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
    super('CONFIGURATION_INVALID', `Configuration invalid: ${text}`, options);
    this.name = 'ConfigurationError';
    this.issues = issues;
  }

  /** Whether `error` is a {@link ConfigurationError}, from any copy of the package. */
  static override isInstance(error: unknown): error is ConfigurationError {
    return ThreatlibError.hasCode(error, 'CONFIGURATION_INVALID');
  }
}
