import { ThreatlibError } from '../errors/threatlib-error.js';

/** Why an HTTP request produced no response. */
export type HttpFailureKind = 'timeout' | 'aborted' | 'network' | 'too_large' | 'insecure';

/** Thrown by the HTTP client when a request produced no usable response. Never carries request headers. */
export class HttpError extends ThreatlibError {
  /** Why the request failed. */
  readonly kind: HttpFailureKind;
  /** The URL asked, without its query string (which may hold a key). */
  readonly url: string;

  constructor(kind: HttpFailureKind, url: string, message: string, options: { cause?: unknown } = {}) {
    super(`HTTP_${kind.toUpperCase()}`, message, options);
    this.name = 'HttpError';
    this.kind = kind;
    this.url = url;
  }

  /** Whether `error` is an {@link HttpError}, from any copy of the package. */
  static override isInstance(error: unknown): error is HttpError {
    return ThreatlibError.isInstance(error) && error.code.startsWith('HTTP_') && 'kind' in error;
  }
}
