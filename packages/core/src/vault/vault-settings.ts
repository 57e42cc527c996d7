// What a vault is made with and what it tells: the settings a vault runs with (resolved from the user's options), the
// callback a rotation calls for new keys, and the events on `vault.events`.

import type { AuditEvent } from '../events/audit-event.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import type { Vault } from './vault.js';
import type { VaultStore } from './vault-store.js';

/** Why a vault locked. */
export type LockReason = 'manual' | 'timeout' | 'stop';

/** Events a {@link Vault} emits on `vault.events`. The client forwards them as `vaultLocked` and `audit`. */
export interface VaultEvents {
  /** The vault locked: its keys were erased from memory. */
  locked: [reason: LockReason];
  /** The vault was unlocked. */
  unlocked: [];
  /** An auditable action (see {@link AuditEvent}); never holds a secret. */
  audit: [event: AuditEvent];
  /**
   * Work the vault did on its own failed: a timed rotation, the re-encryption that follows `set` and `delete`, or
   * keeping the change in a store that keeps every change (browser storage); then `sealed()` and `save()` reject with
   * the same error.
   */
  error: [error: unknown, during: 'rotation' | 'sealing' | 'saving'];
}

/**
 * Called by `rotate()` (and timed rotation) before the vault is re-encrypted: rotate the API keys at their vendors
 * and return the new ones by feed id, or return nothing to keep them. It gets feed ids only; `vault.get(feed)` is
 * there if the old key is needed to ask for a new one. It must not await `vault.rotate()`, `unlock()` or `save()`:
 * those wait for the rotation in progress, which waits for the callback. If it throws, nothing changes.
 */
export type RotateKeysCallback = (context: {
  feeds: readonly string[];
  vault: Vault;
}) => RotatedKeys | Promise<RotatedKeys>;

/** What a {@link RotateKeysCallback} returns: new keys by feed id, or nothing to keep the keys as they are. */
// biome-ignore lint/suspicious/noConfusingVoidType: void lets a callback that returns nothing (async or not) type-check.
export type RotatedKeys = Record<string, string> | undefined | void;

/** Everything a vault needs, resolved (see `ThreatClient.createVault` for the options users give). */
export interface VaultSettings {
  /** KDF of a new vault (an opened vault keeps the one it was made with). */
  keyDerivation: 'argon2id' | 'pbkdf2';
  /** PBKDF2 iterations of a new vault. */
  iterations: number;
  /** Salt bytes of a new vault. */
  saltSize: number;
  /** GCM tag bytes of a new vault. */
  tagSize: number;
  /** Lock after `lockTimeout` ms without a `get`. */
  autoLock: boolean;
  lockTimeout: number;
  /** Rotate every `rotationInterval` ms, counted from the envelope's `rotatedAt`. */
  rotationEnabled: boolean;
  rotationInterval: number;
  onRotate?: RotateKeysCallback | undefined;
  /** Zero key bytes when they are dropped. */
  secureErase: boolean;
  /** Hold keys XOR-masked in memory. */
  obfuscateKeys: boolean;
  /** Apply the best-effort process measures of `guardAgainstDumps` and log its warnings. */
  preventDumps: boolean;
  /** Where `save()` and rotation write by default (with a `store`, the name the vault is kept under there). */
  path?: string | undefined;
  /** Where the vault is kept (default vault files, which need Node.js); browser storage in a page. */
  store?: VaultStore | undefined;
  clock: Clock;
  logger: Logger;
}
