import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown when a vault cannot be opened or unlocked with the password given: the password is wrong (or the salt or
 * key-derivation parameters were deliberately changed, which cannot be told apart from a wrong password). Nothing
 * was decrypted and the vault file was not touched.
 */
export class VaultAuthError extends ThreatlibError {
  /** The vault file, when one was being opened. */
  readonly path: string | undefined;

  constructor(message: string, options: { path?: string; cause?: unknown } = {}) {
    super('VAULT_AUTH_FAILED', message, options);
    this.name = 'VaultAuthError';
    this.path = options.path;
  }

  /** Whether `error` is a {@link VaultAuthError}, from any copy of the package. */
  static override isInstance(error: unknown): error is VaultAuthError {
    return ThreatlibError.hasCode(error, 'VAULT_AUTH_FAILED');
  }
}
