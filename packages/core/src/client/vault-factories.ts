import { BrowserVaultStore } from '../browser-storage/browser-vault-store.js';
import { mergeConfig } from '../config/merge-config.js';
import { parseSecurityAndLogging } from '../config/parse-config.js';
import type { ApiKeyConfig, ThreatConfig } from '../config/schema.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { AuditEvent } from '../events/audit-event.js';
import { isBuiltinFeedId } from '../feeds/feed-ids.js';
import { withCategory } from '../logging/categories.js';
import { closeLogger, createLogger } from '../logging/create-logger.js';
import type { Logger } from '../logging/logger.js';
import { hasVaultFiles } from '../vault/atomic-write.js';
import { Vault, type VaultSettings } from '../vault/vault.js';
import { type VaultOptions, vaultClientConfig, vaultSettings } from '../vault/vault-options.js';
import { clockOf, layeredConfig } from './layered-config.js';
import type { ThreatClient, ThreatClientOptions, VaultClient } from './threat-client.js';

/**
 * Makes the client of a vault once the vault exists: the client takes over `ownLogger` (a logger made for the vault,
 * which the client's `stop()` closes) and records `audit` once made.
 */
type AdoptVault = (
  config: ThreatConfig,
  options: ThreatClientOptions,
  made: { ownLogger: Logger | undefined; audit: () => AuditEvent },
) => ThreatClient;

/** `ThreatClient.createVault`: a vault made with `password` holding the keys of `apiKeys`, and its client. */
export function createVaultClient(
  password: string,
  apiKeys: Readonly<Record<string, string | ApiKeyConfig | undefined>>,
  vaultOptions: VaultOptions,
  adopt: AdoptVault,
): Promise<VaultClient> {
  const { keys, config } = vaultInput(apiKeys, vaultOptions);
  return withVault(
    config,
    vaultOptions,
    'vault_created',
    async (settings, store) => {
      if (!store) return Vault.create(password, keys, settings);
      // In a page with `storage`, the new vault is kept there at once (never over another vault of that name).
      const name = settings.path ?? DEFAULT_VAULT_NAME;
      const vault = await Vault.create(password, keys, { ...settings, path: name });
      await store.create(name, vault.toBytes()).catch((error: unknown) => {
        vault.lock('stop');
        throw error;
      });
      return vault;
    },
    adopt,
  );
}

/**
 * `ThreatClient.openVault`: the vault file at `path` (in a page with `storage`, the vault kept there under that name)
 * opened with `password`, and its client.
 */
export function openVaultClient(
  path: string,
  password: string,
  vaultOptions: VaultOptions,
  adopt: AdoptVault,
): Promise<VaultClient> {
  return withVault(
    vaultClientConfig(vaultOptions),
    vaultOptions,
    'vault_opened',
    (settings) => Vault.open(path, password, settings),
    adopt,
  );
}

/**
 * `ThreatClient.createVault`'s input split: the keys that go into the vault, and the client's configuration (the
 * other settings of object entries in its `apiKeys`, `sources` defaulting to the built-in feeds among the keys).
 *
 * @throws {ConfigurationError} for `apiKeys` that is not an object of keys, or an entry that is neither.
 */
function vaultInput(
  apiKeys: Readonly<Record<string, string | ApiKeyConfig | undefined>>,
  vaultOptions: VaultOptions,
): { keys: Record<string, string>; config: Partial<ThreatConfig> } {
  if (typeof apiKeys !== 'object' || apiKeys === null || Array.isArray(apiKeys)) {
    throw new ConfigurationError([
      {
        path: 'apiKeys',
        message: `expected an object of feed id -> API key, got ${apiKeys === null ? 'null' : Array.isArray(apiKeys) ? 'an array' : `a ${typeof apiKeys}`}`,
      },
    ]);
  }
  const keys: Record<string, string> = {};
  const feedSettings: Record<string, ApiKeyConfig> = {};
  for (const [feed, entry] of Object.entries(apiKeys)) {
    // `{feed_otx: process.env.OTX_KEY}` with the variable unset: a feed without a key, as in `apiKeys`.
    if (entry === undefined) continue;
    if (typeof entry === 'string') keys[feed] = entry;
    else if (typeof entry === 'object' && entry !== null) {
      const { key, ...rest } = entry;
      if (key !== undefined) keys[feed] = key;
      if (Object.keys(rest).length > 0) feedSettings[feed] = rest;
    } else {
      throw new ConfigurationError([
        {
          path: `apiKeys.${feed}`,
          message: `expected an API key string or an object {key, endpoint?, ...}, got ${entry === null ? 'null' : `a ${typeof entry}`}`,
        },
      ]);
    }
  }
  const base = vaultClientConfig(vaultOptions);
  const config: Partial<ThreatConfig> = {
    ...base,
    sources: base.sources ?? Object.keys(keys).filter(isBuiltinFeedId),
    apiKeys: mergeConfig<Record<string, ApiKeyConfig>>(feedSettings, base.apiKeys),
  };
  return { keys, config };
}

/** The name a vault is kept under in a page's storage when `vaultOptions.path` gives none. */
const DEFAULT_VAULT_NAME = 'vault';

/**
 * Where the vault is kept: in a page (no vault files) whose configuration has `storage`, that browser storage;
 * otherwise vault files (undefined), which a page refuses with an error saying to give `storage`.
 */
function vaultStoreOf(config: Partial<ThreatConfig>): BrowserVaultStore | undefined {
  if (config.storage === undefined || hasVaultFiles()) return undefined;
  return new BrowserVaultStore(config.storage);
}

/**
 * Makes a vault with `make` and a client that takes its keys from it (`adopt`). Whatever fails, nothing is left
 * open: the vault is locked and a logger made here is closed.
 */
async function withVault(
  config: Partial<ThreatConfig>,
  vaultOptions: VaultOptions,
  action: 'vault_created' | 'vault_opened',
  make: (settings: VaultSettings, store: BrowserVaultStore | undefined) => Promise<Vault>,
  adopt: AdoptVault,
): Promise<VaultClient> {
  const clientOptions = vaultOptions.clientOptions ?? {};
  // The vault needs its security settings (environment included), logger and clock before the client exists,
  // since the client's default `sources` may come from the vault; the client then shares the same ones.
  const layered = layeredConfig(config, clientOptions).config;
  const { security, logging } = parseSecurityAndLogging(layered);
  const store = vaultStoreOf(layered);
  const logger = clientOptions.logger ?? createLogger(logging);
  const clock = clockOf(clientOptions);
  const settings = vaultSettings(security, vaultOptions, { clock, logger: withCategory(logger, 'vault') });
  // A logger made here and never handed to a client must not leave its transports' timers and sockets open.
  const vault = await make(store ? { ...settings, store } : settings, store).catch(async (error: unknown) => {
    if (!clientOptions.logger) await closeLogger(logger);
    throw error;
  });
  try {
    const sources = config.sources ?? vault.keys().filter(isBuiltinFeedId);
    const client = adopt(
      { ...config, sources } as ThreatConfig,
      { ...clientOptions, logger, clock, vault },
      {
        ownLogger: clientOptions.logger ? undefined : logger,
        audit: () => ({
          action,
          at: new Date(clock.now()).toISOString(),
          ...(vault.path ? { path: vault.path } : {}),
          detail: { feeds: vault.keys(), kdf: vault.kdf.algorithm },
        }),
      },
    );
    return { client, vault, trojan: client };
  } catch (error) {
    vault.lock('stop');
    if (!clientOptions.logger) await closeLogger(logger);
    throw error;
  }
}
