// How the document store reads the driver's failures: duplicate keys of a retried write, transient faults, and
// messages with the credentials of a connection string taken out.
import { type MongoBulkWriteError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { StorageError, type StorageOperation } from '../errors/storage-error.js';

/** The write errors of a bulk write (the driver gives one or several). */
export function writeErrorsOf(error: MongoBulkWriteError): Array<{ index: number; code: number }> {
  const errors: unknown = error.writeErrors;
  return (Array.isArray(errors) ? errors : [errors]) as Array<{ index: number; code: number }>;
}

/** Whether every write the server refused was refused as a duplicate key (and nothing else went wrong). */
export function onlyDuplicates(error: MongoBulkWriteError): boolean {
  const errors = writeErrorsOf(error);
  return errors.length > 0 && errors.every((e) => e.code === 11000) && !error.writeConcernError;
}

/** Whether a driver failure is worth trying again (network, server selection, a retryable label). */
function isTransient(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    (typeof (error as { hasErrorLabel?: unknown }).hasErrorLabel === 'function' &&
      ((error as { hasErrorLabel(label: string): boolean }).hasErrorLabel('RetryableWriteError') ||
        (error as { hasErrorLabel(label: string): boolean }).hasErrorLabel('TransientTransactionError')))
  );
}

/** Removes credentials a driver message might carry in a connection string (`//user:password@`). */
function scrub(message: string): string {
  return message.replace(/\/\/[^/@\s]*@/g, '//***@');
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return (error as Error | undefined)?.message ?? String(error);
}

/** A driver call's failure as a `StorageError` naming the operation and `where` it ran, never the URI. */
export function driverError(
  operation: StorageOperation,
  where: string,
  key: string | undefined,
  error: unknown,
): StorageError {
  return new StorageError(
    'mongodb',
    operation,
    `Document store: ${operation} on ${where} failed: ${scrub(messageOf(error))}`,
    {
      ...(key === undefined ? {} : { target: key }),
      isRetryable: isTransient(error),
      cause: error,
    },
  );
}
