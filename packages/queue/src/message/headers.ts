/** Header names the processor writes; every one starts with `x-threatlib-`. */
export const HEADERS = {
  /** The attempt a delivery is (1 for the first); absent means 1. */
  attempt: 'x-threatlib-attempt',
  /** On a dead-lettered message: the last error's message. */
  error: 'x-threatlib-error',
  /** On a dead-lettered message: the last error's name (`UnprocessableMessageError`, `TypeError`...). */
  errorName: 'x-threatlib-error-name',
  /** On a dead-lettered message: `unprocessable` (no retry can fix it) or `exhausted` (every attempt failed). */
  reason: 'x-threatlib-dead-letter-reason',
  /** On a dead-lettered message: the queue or topic it was consumed from. */
  source: 'x-threatlib-source',
  /** On a dead-lettered message: the attempts made. */
  attempts: 'x-threatlib-attempts',
  /** On a dead-lettered message: when it was dead-lettered (ISO 8601). */
  failedAt: 'x-threatlib-failed-at',
  /**
   * On an alert the pipeline publishes itself (no client integration delivering alerts): the id of the message it
   * was raised for, when that message had one. A processed result carries that id as its `messageId` instead.
   */
  sourceId: 'x-threatlib-source-id',
} as const;

/** Longest error text kept in a header (AMQP header tables are limited to 64 KiB in all). */
const MAX_ERROR_TEXT = 2000;

/** The headers that explain why a message was dead-lettered. */
export function deadLetterHeaders(
  error: unknown,
  reason: 'unprocessable' | 'exhausted',
  source: string,
  attempts: number,
  now: number,
): Record<string, string> {
  const message = error instanceof Error ? error.message : String(error);
  return {
    [HEADERS.error]: message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT)}…` : message,
    [HEADERS.errorName]: error instanceof Error ? error.name : typeof error,
    [HEADERS.reason]: reason,
    [HEADERS.source]: source,
    [HEADERS.attempts]: String(attempts),
    [HEADERS.failedAt]: new Date(now).toISOString(),
  };
}

/** A header's value as text (AMQP and Kafka hand them back as strings, numbers or Buffers). */
export function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}

/** The attempt number a header says, 1 when it is absent or not a positive whole number. */
export function attemptOf(value: unknown): number {
  const n = Number(headerText(value));
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
