import { ThreatlibError } from './threatlib-error.js';

/** Thrown when an endpoint is refused by the security options (plain HTTP while `enforceHttps` is on). */
export class InsecureEndpointError extends ThreatlibError {
  /** The refused URL, without credentials or query string. */
  readonly url: string;

  constructor(url: string, message: string) {
    super('INSECURE_ENDPOINT', message);
    this.name = 'InsecureEndpointError';
    this.url = url;
  }

  /** Whether `error` is an {@link InsecureEndpointError}, from any copy of the package. */
  static override isInstance(error: unknown): error is InsecureEndpointError {
    return ThreatlibError.hasCode(error, 'INSECURE_ENDPOINT');
  }
}
