// The vault: an encrypted store of API keys, locked and unlocked, re-encrypted on change and on rotation, saved
// atomically, locking itself when idle. What it is made with is vault-settings.ts, the secrets it holds while
// unlocked unlocked-state.ts, what it accepts vault-entry.ts.

import { toBase64 } from '../bytes/base64.js';
import type { HostBytes } from '../bytes/host-bytes.js';
import { ValidationError } from '../errors/validation-error.js';
import type { AuditEvent } from '../events/audit-event.js';
import { EventBus } from '../events/event-bus.js';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '../security/redacted-view.js';
import { DueTimer } from './due-timer.js';
import { guardAgainstDumps } from './dump-guard.js';
import { type EnvelopeKdf, fromBase64, parseEnvelope, serializeEnvelope, type VaultEnvelope } from './envelope.js';
import { ProtectedBytes } from './protected-bytes.js';
import { newSalt } from './seal.js';
import {
  deriveWith,
  discard,
  newOpenState,
  type OpenState,
  openEnvelope,
  protect,
  protectionOf,
  seal,
} from './unlocked-state.js';
import { checkEntry, checkPassword, checkRotatedKeys } from './vault-entry.js';
import { VaultLockedError } from './vault-locked-error.js';
import type { LockReason, VaultEvents, VaultSettings } from './vault-settings.js';
import { type VaultStore, vaultFiles } from './vault-store.js';

export type { LockReason, RotatedKeys, RotateKeysCallback, VaultEvents, VaultSettings } from './vault-settings.js';

/**
 * An encrypted store of API keys: AES-256-GCM under a key derived from a password (argon2id or PBKDF2), in a
 * versioned envelope that records its parameters. While locked it holds only the ciphertext and the feed ids;
 * unlocked, it holds the keys as byte buffers (masked with `obfuscateKeys`) that are zeroed on lock.
 *
 * Made by `ThreatClient.createVault` / `ThreatClient.openVault` (or {@link Vault.create} / {@link Vault.open}).
 *
 * @example
 * ```ts
 * const { client, vault } = await ThreatClient.createVault(password, { feed_otx: otxKey }, { path: 'keys.vault' });
 * await vault.save();
 * vault.lock();
 * await vault.unlock(password);
 * ```
 */
export class Vault {
  /** The vault's own events; a client given this vault forwards them. */
  readonly events: EventBus<VaultEvents>;

  readonly #settings: VaultSettings;
  /** Where `save()` writes: files, or the page's browser storage. */
  readonly #store: VaultStore;
  #envelope: VaultEnvelope;
  #feeds: Set<string>;
  #open: OpenState | undefined;
  #path: string | undefined;
  #lastUse = 0;
  readonly #lockTimer: DueTimer;
  readonly #rotationTimer: DueTimer;
  #nextRotationAt: number;
  #queue: Promise<unknown> = Promise.resolve();
  /** Counts re-encryptions: one that finishes after a newer one started does not replace the envelope. */
  #generation = 0;
  /** The re-encryptions `set` and `delete` started in the background (and what they keep, see #keep). */
  #sealing: Promise<unknown> = Promise.resolve();
  /** The writes of a store that keeps every change, one after another. */
  #keeping: Promise<unknown> = Promise.resolve();
  /** Why the newest re-encryption failed, until a newer one succeeds. */
  #sealFailure: { error: unknown } | undefined;
  /**
   * What the next envelope records beside the ciphertext. Rotation changes it in the same instant as the encryption
   * key, so a re-encryption started at any moment seals with a salt and a key that belong together.
   */
  #header: { kdf: EnvelopeKdf; tagLength: number; rotatedAt: string };

  private constructor(envelope: VaultEnvelope, feeds: Iterable<string>, state: OpenState, settings: VaultSettings) {
    this.#settings = settings;
    this.#store = settings.store ?? vaultFiles;
    this.#lockTimer = new DueTimer(settings.clock);
    this.#rotationTimer = new DueTimer(settings.clock);
    this.#envelope = envelope;
    this.#header = { kdf: envelope.kdf, tagLength: envelope.cipher.tagLength, rotatedAt: envelope.rotatedAt };
    this.#feeds = new Set(feeds);
    this.#path = settings.path;
    this.events = new EventBus<VaultEvents>(settings.logger);
    this.#nextRotationAt = Date.parse(envelope.rotatedAt) + settings.rotationInterval;
    if (settings.preventDumps) {
      for (const warning of guardAgainstDumps()) settings.logger.warn({ path: 'security.memoryProtection' }, warning);
    }
    this.#becomeOpen(state);
  }

  /**
   * Makes a new vault holding `keys` (feed id -> key), encrypted under `password`, unlocked. A Uint8Array key is
   * taken over: the vault masks it in place and zeroes it on lock.
   *
   * @throws {ValidationError} for an empty password, a feed id that is not lower-case letters, digits, `_` or `-`,
   *   or an empty key.
   */
  static async create(
    password: string,
    keys: Readonly<Record<string, string | Uint8Array>>,
    settings: VaultSettings,
  ): Promise<Vault> {
    checkPassword(password);
    const entries = Object.entries(keys).map(([feed, key]) => [feed, checkEntry(feed, key)] as const);
    const { state, kdf } = await newOpenState(password, entries, settings);
    const envelope = await seal(state, kdf, settings.tagSize, new Date(settings.clock.now()).toISOString());
    return new Vault(envelope, state.keys.keys(), state, settings);
  }

  /**
   * Reads the vault file at `path` (or the vault kept under that name by `settings.store`) and unlocks it with
   * `password`. The file is only read, whatever happens.
   *
   * @throws {RuntimeUnsupportedError} for a file outside Node.js (a page has no files: give a `store`, or use
   *   {@link Vault.fromBytes}).
   * @throws {VaultCorruptError} when the file is damaged or was tampered with.
   * @throws {VaultAuthError} when the password is wrong.
   */
  static async open(path: string, password: string, settings: VaultSettings): Promise<Vault> {
    const bytes = await (settings.store ?? vaultFiles).read(path);
    return Vault.fromBytes(bytes, password, { ...settings, path: settings.path ?? path }, path);
  }

  /**
   * Opens a vault from the bytes of a vault file (as `save` writes them).
   *
   * @throws {VaultCorruptError} when the bytes are not an intact vault.
   * @throws {VaultAuthError} when the password is wrong.
   */
  static async fromBytes(bytes: Uint8Array, password: string, settings: VaultSettings, path?: string): Promise<Vault> {
    checkPassword(password);
    const envelope = parseEnvelope(bytes, path);
    const protection = protectionOf(settings);
    const passwordBytes = ProtectedBytes.fromString(password, protection);
    try {
      const { state, feeds } = await openEnvelope(envelope, passwordBytes, protection, path);
      return new Vault(envelope, feeds, state, settings);
    } catch (error) {
      passwordBytes.erase();
      throw error;
    }
  }

  /** Whether the keys are out of reach until `unlock`. */
  get isLocked(): boolean {
    return this.#open === undefined;
  }

  /**
   * The file `save()` writes by default: the one it was opened from or last saved to (in a page with `storage`, the
   * name the vault is kept under).
   */
  get path(): string | undefined {
    return this.#path;
  }

  /** When the vault was last encrypted under a fresh salt (creation or rotation), ISO 8601. */
  get rotatedAt(): string {
    return this.#envelope.rotatedAt;
  }

  /** The KDF and parameters the vault is encrypted with (no salt, no secret). */
  get kdf(): Readonly<Omit<EnvelopeKdf, 'salt'>> {
    const { salt: _salt, ...params } = this.#envelope.kdf;
    return params;
  }

  /** Ids of the feeds whose keys the vault holds, sorted. Known even while locked; ids are not secret. */
  keys(): string[] {
    return [...this.#feeds].sort();
  }

  /** Whether the vault holds a key for `feed` (answers while locked). */
  has(feed: string): boolean {
    return this.#feeds.has(feed);
  }

  /**
   * The key of `feed`, or undefined when the vault holds none. Every call counts as use for auto-lock, and is
   * audited as `key_used`.
   *
   * @throws {VaultLockedError} while locked.
   */
  get(feed: string): string | undefined {
    const state = this.#requireOpen(`reading the key of ${feed}`, [feed]);
    this.#touch();
    const key = state.keys.get(feed);
    if (!key) return undefined;
    this.#audit({ action: 'key_used', feed });
    return key.reveal();
  }

  /**
   * Stores (or replaces) the key of `feed` in memory and re-encrypts in the background (WebCrypto is asynchronous);
   * `save()` waits for that and writes it to disk, and `sealed()` resolves once `toBytes()` holds it. A Uint8Array
   * key is taken over: masked in place and zeroed on lock.
   *
   * @throws {VaultLockedError} while locked.
   * @throws {ValidationError} for a bad feed id or an empty key.
   */
  set(feed: string, key: string | Uint8Array): void {
    const state = this.#requireOpen(`storing the key of ${feed}`, [feed]);
    const bytes = checkEntry(feed, key);
    this.#touch();
    state.keys.get(feed)?.erase();
    state.keys.set(feed, protect(bytes, protectionOf(this.#settings)));
    this.#feeds.add(feed);
    this.#reseal(state);
    this.#audit({ action: 'key_set', feed });
  }

  /**
   * Removes the key of `feed`; returns whether there was one. `save()` writes the change to disk.
   *
   * @throws {VaultLockedError} while locked.
   */
  delete(feed: string): boolean {
    const state = this.#requireOpen(`deleting the key of ${feed}`, [feed]);
    this.#touch();
    const key = state.keys.get(feed);
    if (!key) return false;
    key.erase();
    state.keys.delete(feed);
    this.#feeds.delete(feed);
    this.#reseal(state);
    this.#audit({ action: 'key_deleted', feed });
    return true;
  }

  /**
   * Erases the keys, the password and the encryption key from memory (zeroing them with `secureErase`) and stops
   * the vault's timers. Emits `locked` unless already locked.
   */
  lock(reason: LockReason = 'manual'): void {
    this.#clearTimers();
    const state = this.#open;
    if (!state) return;
    this.#open = undefined;
    for (const key of state.keys.values()) key.erase();
    state.keys.clear();
    state.password.erase();
    state.encryptionKey.erase();
    if (this.#settings.secureErase) state.keyCheck.fill(0);
    this.events.emit('locked', reason);
    this.#audit({ action: 'vault_locked', reason });
  }

  /**
   * Unlocks with `password`. On an unlocked vault it checks the password and counts as use.
   *
   * @throws {VaultAuthError} when the password is wrong (audited as `vault_unlock_failed`); the vault stays as it was.
   * @throws {VaultCorruptError} when the password is right but the ciphertext does not decrypt.
   */
  unlock(password: string): Promise<void> {
    return this.#serially(async () => {
      checkPassword(password);
      const protection = protectionOf(this.#settings);
      const candidate = ProtectedBytes.fromString(password, protection);
      try {
        const opened = await openEnvelope(this.#envelope, candidate, protection, this.#path);
        if (this.#open) {
          // Already unlocked: the password was right; keep the keys already in memory (they may be newer).
          candidate.erase();
          discard(opened.state);
          this.#touch();
          return;
        }
        this.#feeds = new Set(opened.feeds);
        this.#becomeOpen(opened.state);
        this.events.emit('unlocked');
        this.#audit({ action: 'vault_unlocked' });
      } catch (error) {
        candidate.erase();
        this.#audit({ action: 'vault_unlock_failed', reason: errorCode(error) });
        throw error;
      }
    });
  }

  /**
   * Rotates: calls `onRotate` (when configured) and stores the keys it returns, then re-encrypts everything under a
   * key derived from a fresh salt, with a fresh nonce, and saves to `path` atomically when the vault has one.
   * Parameters (KDF, its cost, salt and tag sizes) stay those of the envelope.
   *
   * @throws {VaultLockedError} while locked, or when the vault was locked during the rotation (nothing changed).
   */
  rotate(): Promise<void> {
    return this.#serially(async () => {
      let state = this.#requireOpen('rotating');
      const replaced: string[] = [];
      if (this.#settings.onRotate) {
        const fresh = await this.#settings.onRotate({ feeds: this.keys(), vault: this });
        state = this.#requireOpen('storing the keys onRotate returned', [], state);
        const checked = checkRotatedKeys(fresh);
        if (checked !== undefined) {
          const protection = protectionOf(this.#settings);
          for (const [feed, key] of checked) {
            state.keys.get(feed)?.erase();
            state.keys.set(feed, protect(key, protection));
            this.#feeds.add(feed);
            replaced.push(feed);
          }
          // Sealed now under the current key: should deriving the new one fail, the new keys are kept.
          this.#reseal(state);
        }
      }
      const { salt, ...params } = this.#header.kdf;
      const kdf = { ...params, salt: toBase64(newSalt(fromBase64(salt).length)) } as EnvelopeKdf;
      const derived = await deriveWith(state.password, kdf);
      if (this.#open !== state) {
        derived.encryptionKey.fill(0);
        derived.keyCheck.fill(0);
        this.#requireOpen('rotating', [], state);
      }
      const protection = protectionOf(this.#settings);
      state.encryptionKey.erase();
      state.encryptionKey = new ProtectedBytes(derived.encryptionKey, protection);
      if (this.#settings.secureErase) state.keyCheck.fill(0);
      state.keyCheck = derived.keyCheck;
      const now = this.#settings.clock.now();
      this.#header = { kdf, tagLength: this.#header.tagLength, rotatedAt: new Date(now).toISOString() };
      this.#reseal(state);
      await this.sealed();
      this.#nextRotationAt = now + this.#settings.rotationInterval;
      this.#armRotationTimer();
      this.#audit({ action: 'vault_rotated', detail: { replaced: replaced.sort(), kdf: kdf.algorithm } });
      // A store that keeps every change has kept this one by now (sealed() waited for it).
      if (this.#path && !this.#store.keepsEveryChange) await this.#write(this.#path);
    });
  }

  /**
   * Writes the vault (encrypted, as it is now, once the re-encryptions of `set` and `delete` are done) to `path`, or
   * to the path it came from, atomically with mode 0600; with a `store` (browser storage in a page), keeps it there
   * under that name. Works while locked.
   *
   * @throws {RuntimeUnsupportedError} for a file outside Node.js (a page has no files: give the client configuration
   *   `storage`, or keep {@link toBytes} after `sealed()`).
   * @throws {ValidationError} when no path is given and the vault has none.
   */
  save(path?: string): Promise<void> {
    return this.#serially(async () => {
      const target = path ?? this.#path;
      if (!target) {
        throw new ValidationError('vault.save() call', [
          { path: 'path', message: 'the vault was not opened from a file: give the path to save to' },
        ]);
      }
      await this.#write(target);
      this.#path = target;
    });
  }

  /**
   * The vault file's bytes, exactly as `save` would write them. After `set` or `delete`, await {@link sealed} first:
   * until then these are the bytes from before the change.
   */
  toBytes(): HostBytes {
    return serializeEnvelope(this.#envelope);
  }

  /**
   * Resolves once the re-encryptions `set` and `delete` started are done, so that {@link toBytes} holds every change
   * (a lock in the meantime does not stop them).
   *
   * @throws the error of the newest re-encryption when it failed (also emitted as `error`).
   */
  async sealed(): Promise<void> {
    let waited: Promise<unknown>;
    do {
      waited = this.#sealing;
      await waited;
    } while (waited !== this.#sealing);
    if (this.#sealFailure) throw this.#sealFailure.error;
  }

  /** What `JSON.stringify` writes of a vault: where it is saved, whether it is locked, its feeds and KDF; no key. */
  toJSON(): { path: string | undefined; locked: boolean; feeds: string[]; kdf: Readonly<Omit<EnvelopeKdf, 'salt'>> } {
    return { path: this.path, locked: this.isLocked, feeds: this.keys(), kdf: this.kdf };
  }

  /** What `util.inspect` and `console.log` show of a vault: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('Vault', this.toJSON(), depth, options, inspect);
  }

  async #write(path: string): Promise<void> {
    await this.sealed();
    await this.#store.write(path, serializeEnvelope(this.#envelope));
    this.#audit({ action: 'vault_saved', path });
  }

  /**
   * With a store that keeps every change: writes the envelope as it is when its turn comes, after the writes before
   * it, so that the newest envelope is the one kept last. Resolves once written; a failure is `generation`'s.
   */
  #keep(generation: number): Promise<void> | undefined {
    const path = this.#path;
    if (!this.#store.keepsEveryChange || path === undefined) return undefined;
    const run = this.#keeping.then(() => this.#store.write(path, serializeEnvelope(this.#envelope)));
    this.#keeping = run.catch(() => {});
    return run.then(
      () => this.#audit({ action: 'vault_saved', path }),
      (error: unknown) => {
        if (generation === this.#generation) this.#sealFailure = { error };
        this.events.emit('error', error, 'saving');
      },
    );
  }

  #becomeOpen(state: OpenState): void {
    this.#open = state;
    this.#touch();
    this.#armLockTimer();
    this.#armRotationTimer();
  }

  #requireOpen(doing: string, feeds: readonly string[] = [], expected?: OpenState): OpenState {
    const state = this.#open;
    if (!state || (expected && state !== expected)) {
      throw new VaultLockedError(`The vault is locked: unlock it before ${doing}`, { feeds });
    }
    return state;
  }

  /** Re-encrypts in the background what `state` holds now (read at once: a lock right after loses nothing). */
  #reseal(state: OpenState): void {
    const generation = ++this.#generation;
    const { kdf, tagLength, rotatedAt } = this.#header;
    const done = seal(state, kdf, tagLength, rotatedAt).then(
      (envelope) => {
        if (generation !== this.#generation) return undefined;
        this.#envelope = envelope;
        this.#sealFailure = undefined;
        return this.#keep(generation);
      },
      (error: unknown) => {
        if (generation === this.#generation) this.#sealFailure = { error };
        this.events.emit('error', error, 'sealing');
      },
    );
    this.#sealing = Promise.all([this.#sealing, done]);
  }

  #touch(): void {
    this.#lastUse = this.#settings.clock.now();
  }

  #armLockTimer(): void {
    const { autoLock, lockTimeout } = this.#settings;
    if (!autoLock || !this.#open) return;
    this.#lockTimer.arm(
      () => (this.#open ? this.#lastUse + lockTimeout : undefined),
      () => this.lock('timeout'),
    );
  }

  #armRotationTimer(): void {
    const { rotationEnabled, clock } = this.#settings;
    this.#rotationTimer.cancel();
    if (!rotationEnabled || !this.#open) return;
    // While locked no timer runs; a rotation that fell due meanwhile runs right after the next unlock.
    this.#rotationTimer.arm(
      () => (this.#open ? this.#nextRotationAt : undefined),
      () =>
        this.rotate().catch((error: unknown) => {
          if (!this.#open) return;
          // Try again an interval later rather than in a tight loop against a failing onRotate or disk.
          this.#nextRotationAt = clock.now() + this.#settings.rotationInterval;
          this.#armRotationTimer();
          this.#audit({ action: 'vault_rotation_failed', reason: errorCode(error) });
          this.events.emit('error', error, 'rotation');
        }),
    );
  }

  #clearTimers(): void {
    this.#lockTimer.cancel();
    this.#rotationTimer.cancel();
  }

  #audit(event: Omit<AuditEvent, 'at'>): void {
    this.events.emit('audit', { ...event, at: new Date(this.#settings.clock.now()).toISOString() });
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => {});
    return run;
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERROR';
}
