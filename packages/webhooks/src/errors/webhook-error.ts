import { ThreatlibError } from '@threatlib/core';

/** What the webhooks were doing when they failed. */
export type WebhookOperation = 'start' | 'stop' | 'receive' | 'deliver' | 'register';

/**
 * Thrown when a webhook operation fails: a server that cannot listen, a delivery that cannot be attempted, an
 * outgoing definition refused. Names the operation; never carries a secret, a signature or a URL's credentials.
 */
export class WebhookError extends ThreatlibError {
  readonly operation: WebhookOperation;
  /** Whether trying the same operation again later may succeed (a port in use) or not (a stopped manager). */
  readonly isRetryable: boolean;

  constructor(operation: WebhookOperation, message: string, options: { isRetryable?: boolean; cause?: unknown } = {}) {
    super('WEBHOOK_FAILED', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'WebhookError';
    this.operation = operation;
    this.isRetryable = options.isRetryable ?? false;
  }

  /** Whether `error` is a {@link WebhookError}, from any copy of the package. */
  static override isInstance(error: unknown): error is WebhookError {
    return ThreatlibError.hasCode(error, 'WEBHOOK_FAILED');
  }
}
