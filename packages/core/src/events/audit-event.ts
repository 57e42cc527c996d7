/** What an audit event records. */
export type AuditAction =
  | 'vault_created'
  | 'vault_opened'
  | 'vault_unlocked'
  | 'vault_unlock_failed'
  | 'vault_locked'
  | 'vault_rotated'
  | 'vault_rotation_failed'
  | 'vault_saved'
  | 'key_set'
  | 'key_deleted'
  | 'key_used'
  | 'config_changed';

/**
 * One security-relevant action, emitted as the client's `audit` event (and logged) when `security.enableAuditLog`
 * is on. It names what happened, to which feed or option, and when; it never holds a key, a password or any other
 * secret, and holds no value of an option that is not a plain number or boolean.
 */
export interface AuditEvent {
  action: AuditAction;
  /** ISO 8601, from the client's clock. */
  at: string;
  /** The feed whose key was set, deleted or used. */
  feed?: string;
  /** The option that changed (`performance.maxConcurrency`). */
  option?: string;
  /** The vault file saved or opened. */
  path?: string;
  /** Why: the lock reason (`timeout`, `manual`, `stop`), or the error's code for a failure. */
  reason?: string;
  /** Non-secret detail: a new option value, the feeds a rotation replaced, the KDF in use. */
  detail?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}
