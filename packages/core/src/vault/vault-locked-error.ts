import { ThreatlibError } from '../errors/threatlib-error.js';

/**
 * Thrown when a key is needed while the vault is locked: `vault.get`, `vault.set`, `vault.rotate`, and a scout or
 * correlation that would ask a feed whose key the vault holds. The request is never sent with an empty key.
 */
export class VaultLockedError extends ThreatlibError {
  /** The feeds whose keys were needed, when a lookup asked for them. */
  readonly feeds: readonly string[];

  constructor(message: string, options: { feeds?: readonly string[]; cause?: unknown } = {}) {
    super('VAULT_LOCKED', message, options);
    this.name = 'VaultLockedError';
    this.feeds = options.feeds ?? [];
  }

  /** Whether `error` is a {@link VaultLockedError}, from any copy of the package. */
  static override isInstance(error: unknown): error is VaultLockedError {
    return ThreatlibError.hasCode(error, 'VAULT_LOCKED');
  }
}
