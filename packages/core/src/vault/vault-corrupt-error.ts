import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown when a vault file is damaged or was tampered with: it is not a well-formed envelope, its checksum does not
 * match, or the password is right but the ciphertext or its authenticated header fails AES-GCM verification. Nothing
 * was decrypted and the file was not touched.
 */
export class VaultCorruptError extends ThreatlibError {
  /** The vault file, when one was being opened. */
  readonly path: string | undefined;
  /** Where the damage was found (`checksum`, `kdf.salt`, `ciphertext`...). */
  readonly field: string;

  constructor(field: string, message: string, options: { path?: string; cause?: unknown } = {}) {
    super('VAULT_CORRUPT', message, options);
    this.name = 'VaultCorruptError';
    this.field = field;
    this.path = options.path;
  }

  /** Whether `error` is a {@link VaultCorruptError}, from any copy of the package. */
  static override isInstance(error: unknown): error is VaultCorruptError {
    return ThreatlibError.hasCode(error, 'VAULT_CORRUPT');
  }
}
