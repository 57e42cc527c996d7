import * as z from 'zod';
import type { ThreatClientOptions } from '../client/threat-client.js';
import { toConfigurationIssues } from '../config/format-issues.js';
import { mergeConfig } from '../config/merge-config.js';
import type { SecurityConfig, ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import type { RotateKeysCallback, VaultSettings } from './vault.js';

/**
 * Options of `ThreatClient.createVault` and `ThreatClient.openVault`. The security ones (`autoLock` ...
 * `enableAuditLog`) are the `security` options of the client's configuration, given here for convenience: they are
 * laid over `config.security`, which is laid over the environment (`THREATLIB_AUTO_LOCK`,
 * `THREATLIB_LOCK_TIMEOUT`) and the defaults.
 */
export interface VaultOptions {
  /** Lock after `lockTimeout` ms without a key being read (`security.autoLock`, default true). */
  autoLock?: boolean;
  /** Milliseconds of disuse before auto-lock (`security.lockTimeout`, default 300000). */
  lockTimeout?: number;
  /** Rotate every `rotationInterval` ms (default false). */
  rotationEnabled?: boolean;
  /** Milliseconds between rotations, counted from the last one as the vault file records it (default a day). */
  rotationInterval?: number;
  /** Rotates the API keys themselves on each rotation (see {@link RotateKeysCallback}). */
  onRotate?: RotateKeysCallback;
  /** Cipher of a new vault: only `aes-256-gcm` (`security.encryption.algorithm`). */
  algorithm?: 'aes-256-gcm';
  /** KDF of a new vault (`security.encryption.keyDerivation`, default `argon2id`). */
  keyDerivation?: 'argon2id' | 'pbkdf2';
  /** PBKDF2 iterations of a new vault (`security.encryption.iterations`, default 600000, at least 1000). */
  iterations?: number;
  /** Salt bytes of a new vault (`security.encryption.saltSize`, default 32). */
  saltSize?: number;
  /** GCM tag bytes of a new vault (`security.encryption.tagSize`, default 16). */
  tagSize?: number;
  /** `security.memoryProtection`: `secureErase` (default true), `obfuscateKeys`, `preventDumps` (default false). */
  memoryProtection?: { secureErase?: boolean; obfuscateKeys?: boolean; preventDumps?: boolean };
  /** Emit and log `audit` events (`security.enableAuditLog`, default false). */
  enableAuditLog?: boolean;
  /** The vault file: where `vault.save()` and rotation write (for `openVault`, the file opened). */
  path?: string;
  /**
   * The rest of the client's configuration. `sources` defaults to the built-in feeds whose keys the vault holds;
   * `apiKeys` entries may carry a feed's `endpoint`, `timeout`, `rateLimit` and `categories` without its key.
   */
  config?: Partial<ThreatConfig>;
  /** Options of the client (`env`, `logger`, `clock`, `cache`, `alertStore`). */
  clientOptions?: Omit<ThreatClientOptions, 'vault'>;
}

const rotationSchema = z.object({
  rotationEnabled: z.boolean().default(false),
  rotationInterval: z.int().positive().default(86_400_000),
  onRotate: z
    .custom<RotateKeysCallback>((value) => typeof value === 'function', {
      message: 'expected a function ({feeds, vault}) => new keys',
    })
    .optional(),
  path: z.string().min(1).optional(),
});

/**
 * The client configuration a vault's options describe: `options.config` with the security options laid over its
 * `security`.
 */
export function vaultClientConfig(options: VaultOptions): Partial<ThreatConfig> {
  const { autoLock, lockTimeout, enableAuditLog, memoryProtection } = options;
  const { algorithm, keyDerivation, iterations, saltSize, tagSize } = options;
  return mergeConfig<Partial<ThreatConfig>>(options.config ?? {}, {
    security: {
      autoLock,
      lockTimeout,
      enableAuditLog,
      memoryProtection,
      encryption: { algorithm, keyDerivation, iterations, saltSize, tagSize },
    },
  });
}

/**
 * Resolves a vault's settings from the client's resolved `security` options and the vault-only options.
 *
 * @throws {ConfigurationError} naming `rotationEnabled`, `rotationInterval`, `onRotate` or `path` when malformed.
 */
export function vaultSettings(
  security: SecurityConfig,
  options: VaultOptions,
  context: { clock: Clock; logger: Logger },
): VaultSettings {
  const rotation = {
    rotationEnabled: options.rotationEnabled,
    rotationInterval: options.rotationInterval,
    onRotate: options.onRotate,
    path: options.path,
  };
  const parsed = rotationSchema.safeParse(rotation);
  if (!parsed.success) {
    throw new ConfigurationError(
      toConfigurationIssues(parsed.error.issues, { input: rotation, schema: rotationSchema }),
    );
  }
  const { encryption, memoryProtection } = security;
  return {
    keyDerivation: encryption.keyDerivation,
    iterations: encryption.iterations,
    saltSize: encryption.saltSize,
    tagSize: encryption.tagSize,
    autoLock: security.autoLock,
    lockTimeout: security.lockTimeout,
    rotationEnabled: parsed.data.rotationEnabled,
    rotationInterval: parsed.data.rotationInterval,
    onRotate: parsed.data.onRotate,
    secureErase: memoryProtection.secureErase,
    obfuscateKeys: memoryProtection.obfuscateKeys,
    preventDumps: memoryProtection.preventDumps,
    path: parsed.data.path,
    clock: context.clock,
    logger: context.logger,
  };
}
