import { errors } from '@elastic/elasticsearch';
import { StorageError, type StorageOperation } from '../errors/storage-error.js';

const BACKEND = 'elasticsearch';

/** HTTP statuses of a whole request worth trying again: Elasticsearch busy, or a proxy or node not ready. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** The HTTP status of a failed request, when the server answered. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof errors.ResponseError ? error.meta.statusCode : undefined;
}

/** Elasticsearch's `type: reason` of an error body, the first root cause's when that is more precise. */
export function reasonOf(cause: unknown): string {
  if (cause === null || typeof cause !== 'object') return String(cause);
  const { type, reason } = cause as { type?: unknown; reason?: unknown };
  if (typeof type === 'string' && typeof reason === 'string') return `${type}: ${reason}`;
  if (typeof type === 'string') return type;
  return JSON.stringify(cause).slice(0, 500);
}

/** What went wrong, in words that never hold the node's address or credentials. */
export function describeFailure(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const body = error.meta.body as { error?: unknown } | string | undefined;
    const detail =
      body !== null && typeof body === 'object' && body.error !== undefined
        ? reasonOf(body.error)
        : typeof body === 'string' && body.length > 0
          ? body.slice(0, 300)
          : 'no error body';
    return `HTTP ${error.meta.statusCode}: ${detail}`;
  }
  if (error instanceof errors.TimeoutError) return 'no answer in time (request timeout)';
  if (error instanceof errors.NoLivingConnectionsError) return 'no node reachable';
  if (error instanceof errors.ConnectionError) return `connection failed: ${error.message}`;
  if (error instanceof errors.ProductNotSupportedError) return 'the server is not Elasticsearch';
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Whether trying the same request later may succeed: no answer, or an answer that says "not now". */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof errors.ResponseError) return RETRYABLE_STATUSES.has(error.meta.statusCode ?? 0);
  return (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError
  );
}

/** A failed client call as a {@link StorageError} naming the operation and index key. */
export function storageFailure(operation: StorageOperation, target: string | undefined, error: unknown): StorageError {
  if (StorageError.isInstance(error)) return error;
  return new StorageError(
    BACKEND,
    operation,
    `Elasticsearch ${operation}${target === undefined ? '' : ` on ${target}`} failed: ${describeFailure(error)}`,
    { ...(target === undefined ? {} : { target }), isRetryable: isRetryableFailure(error), cause: error },
  );
}

/** Runs a client call, turning its failure into a {@link StorageError}. */
export async function runRequest<T>(
  operation: StorageOperation,
  target: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storageFailure(operation, target, error);
  }
}

/**
 * A document Elasticsearch refused (a bulk item answered with an error): which index and id, the HTTP status of the
 * item and Elasticsearch's reason. Retryable only when the status was 429 (too busy) after the retries ran out.
 */
export class DocumentRejectedError extends StorageError {
  /** The concrete index the document was sent to (`threats-2026.03.01`). */
  readonly index: string;
  readonly id: string;
  /** The bulk item's HTTP status (400 mapping, 403 blocked index, 429 too busy...). */
  readonly status: number;
  /** Elasticsearch's error type (`strict_dynamic_mapping_exception`...). */
  readonly errorType: string;
  /** Elasticsearch's reason, as it gave it. */
  readonly reason: string;

  constructor(
    indexKey: string,
    item: { index: string; id: string; status: number; error: { type?: unknown; reason?: unknown } | null },
  ) {
    const errorType = typeof item.error?.type === 'string' ? item.error.type : 'unknown';
    const reason = typeof item.error?.reason === 'string' ? item.error.reason : 'no reason given';
    super(
      BACKEND,
      'index',
      `Elasticsearch refused document ${item.id} for ${item.index} (HTTP ${item.status}): ${errorType}: ${reason}`,
      { target: indexKey, isRetryable: item.status === 429 },
    );
    this.name = 'DocumentRejectedError';
    this.index = item.index;
    this.id = item.id;
    this.status = item.status;
    this.errorType = errorType;
    this.reason = reason;
  }

  /** Whether `error` is a {@link DocumentRejectedError}, from any copy of the package. */
  static override isInstance(error: unknown): error is DocumentRejectedError {
    return StorageError.isInstance(error) && (error as Error).name === 'DocumentRejectedError';
  }
}
