import { ThreatlibError } from '@threatlib/core';

/** The event formats a {@link EventFormatError} is about. */
export type EventFormatName = 'cef' | 'leef' | 'json';

/**
 * Thrown when an event cannot be written in CEF, LEEF or JSON (a header value with a line break or another control
 * character, a key the format does not allow, an indicator value that is not one indicator of its type), or when a
 * line is not CEF or LEEF as its specification defines it (an unescaped delimiter, an escape sequence the format does
 * not have, a missing header field). `position` is the offset in the line where parsing stopped; the message quotes
 * at most a few characters around it. Never retryable: the same event fails the same way.
 */
export class EventFormatError extends ThreatlibError {
  declare readonly code: 'EVENT_FORMAT_INVALID';
  readonly format: EventFormatName;
  /** Offset in the parsed line where the problem is; undefined when formatting. */
  readonly position: number | undefined;
  /** Always false: writing the same event again fails the same way (the client does not retry the delivery). */
  readonly isRetryable = false;

  constructor(format: EventFormatName, message: string, position?: number) {
    super('EVENT_FORMAT_INVALID', `${format.toUpperCase()}: ${message}`);
    this.name = 'EventFormatError';
    this.format = format;
    this.position = position;
  }

  /** Whether `error` is an {@link EventFormatError}, from any copy of the package. */
  static override isInstance(error: unknown): error is EventFormatError {
    return ThreatlibError.isInstance(error) && error.code === 'EVENT_FORMAT_INVALID';
  }
}

/** `text` around `position`, JSON-quoted, for an error message (never the whole line: it may be long). */
export function excerpt(text: string, position: number): string {
  const start = Math.max(0, position - 12);
  return JSON.stringify(text.slice(start, position + 12));
}
