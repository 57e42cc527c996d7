import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown when a warninglist or local list cannot be loaded: the file is missing or unreadable, is not JSON, does not
 * have the expected shape, or holds an entry that cannot be used safely. The message names the list's source (its
 * file, or the list's name when it was given as a value) and the problem.
 *
 * @example
 * ```ts
 * try { await loadMispWarninglist('lists/mine.json'); } catch (e) {
 *   if (ListLoadError.isInstance(e)) console.error(e.source, e.problem);
 * }
 * ```
 */
export class ListLoadError extends ThreatlibError {
  /** Where the list came from: a file path, or `warninglist "<name>"` for a list given as a value. */
  readonly source: string;
  /** What was wrong, in words a user can act on. */
  readonly problem: string;

  constructor(source: string, problem: string, options: { cause?: unknown } = {}) {
    super('LIST_LOAD_FAILED', `Cannot load list ${source}: ${problem}`, options);
    this.name = 'ListLoadError';
    this.source = source;
    this.problem = problem;
  }

  /** Whether `error` is a {@link ListLoadError}, from any copy of the package. */
  static override isInstance(error: unknown): error is ListLoadError {
    return ThreatlibError.hasCode(error, 'LIST_LOAD_FAILED');
  }
}
