import { ThreatlibError } from '@threatlib/core';

/**
 * Thrown by a message handler for a message that no retry can fix (not JSON, no indicator, an invalid indicator):
 * the processor dead-letters it at once, with this error's message as the reason, instead of retrying it.
 *
 * @example
 * ```ts
 * await processor.consume('orders', async (message) => {
 *   const order = message.json(); // throws UnprocessableMessageError on bad JSON
 *   if (!order.id) throw new UnprocessableMessageError('no "id" field');
 * });
 * ```
 */
export class UnprocessableMessageError extends ThreatlibError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('MESSAGE_UNPROCESSABLE', message, options);
    this.name = 'UnprocessableMessageError';
  }

  /** Whether `error` is an {@link UnprocessableMessageError}, from any copy of the package. */
  static override isInstance(error: unknown): error is UnprocessableMessageError {
    return ThreatlibError.hasCode(error, 'MESSAGE_UNPROCESSABLE');
  }
}
