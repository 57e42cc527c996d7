import { ThreatlibError } from './threatlib-error.js';

/**
 * Thrown when `browser.secureContext` is true and the page is not a secure context (`isSecureContext` is false: a
 * page served over plain `http://` from a host other than `localhost`, or framed by such a page). WebCrypto's
 * `crypto.subtle`, which the vault and encrypted browser storage need, exists only in secure contexts.
 */
export class InsecureContextError extends ThreatlibError {
  /** The page's origin (`location.origin`), when there is one. */
  readonly origin: string | undefined;

  constructor(message: string, origin: string | undefined) {
    super('INSECURE_CONTEXT', message);
    this.name = 'InsecureContextError';
    this.origin = origin;
  }

  /** Whether `error` is an {@link InsecureContextError}, from any copy of the package. */
  static override isInstance(error: unknown): error is InsecureContextError {
    return ThreatlibError.hasCode(error, 'INSECURE_CONTEXT');
  }
}
