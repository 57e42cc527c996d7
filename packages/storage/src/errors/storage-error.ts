import { ThreatlibError } from '@threatlib/core';

/** What the store was doing when it failed. */
export type StorageOperation = 'connect' | 'store' | 'query' | 'index' | 'search' | 'sweep' | 'stop';

/**
 * Thrown when a storage operation fails on the server's side or cannot be attempted: a server that cannot be reached,
 * a write it did not acknowledge, a call on a stopped store. Names the back end, the operation and the collection or
 * index; the connection string never appears in the message.
 */
export class StorageError extends ThreatlibError {
  /** `mongodb` or `elasticsearch`. */
  readonly backend: string;
  readonly operation: StorageOperation;
  /** The collection or index key, when the operation had one. */
  readonly target: string | undefined;
  /** Whether trying the same operation later may succeed (a lost connection) or not (a stopped store). */
  readonly isRetryable: boolean;

  constructor(
    backend: string,
    operation: StorageOperation,
    message: string,
    options: { target?: string; isRetryable?: boolean; cause?: unknown } = {},
  ) {
    super('STORAGE_FAILED', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'StorageError';
    this.backend = backend;
    this.operation = operation;
    this.target = options.target;
    this.isRetryable = options.isRetryable ?? true;
  }

  /** Whether `error` is a {@link StorageError}, from any copy of the package. */
  static override isInstance(error: unknown): error is StorageError {
    return ThreatlibError.hasCode(error, 'STORAGE_FAILED');
  }
}
