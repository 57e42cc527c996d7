import type { ResolvedConfig } from '../config/schema.js';
import type { AuditEvent } from '../events/audit-event.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Feed } from '../feeds/feed.js';
import type { Logger } from '../logging/logger.js';
import type { Vault } from '../vault/vault.js';
import { VaultLockedError } from '../vault/vault-locked-error.js';

/** How a client's lookups reach the API keys: the vault's first, then `apiKeys`. */
export interface KeyAccess {
  /** The key of `feed`. Throws `VaultLockedError` while the vault that holds it is locked. */
  keyFor(feed: string): Promise<string | undefined>;
  /** Refuses a lookup that would ask feeds whose keys are in a locked vault, before any request is sent. */
  checkKeys(feeds: readonly Feed[]): void;
  /** True when a key for `feed` is configured, in the vault or in `apiKeys`, or the CORS proxy adds it. */
  hasKey(feed: string): boolean;
}

/**
 * The key access of a client with `apiKeys` from `config` and, when given, a vault; `addedByProxy` when the CORS
 * proxy adds every feed's key (`browser.proxy.addsKeys`).
 */
export function keyAccess(
  config: Pick<ResolvedConfig, 'apiKeys'>,
  vault: Vault | undefined,
  addedByProxy = false,
): KeyAccess {
  return {
    keyFor: async (feed) => {
      // Throws VaultLockedError while locked: the engine lets it reject the lookup instead of sending no key.
      if (vault?.has(feed)) return vault.get(feed);
      const entry = config.apiKeys[feed];
      return typeof entry === 'string' ? entry : entry?.key;
    },
    checkKeys: (feeds) => {
      if (!vault?.isLocked) return;
      const locked = feeds.filter((feed) => vault.has(feed.id)).map((feed) => feed.id);
      if (locked.length > 0) {
        throw new VaultLockedError(
          `The vault is locked: unlock it before asking ${locked.join(', ')} (their keys are in the vault); no request was sent`,
          { feeds: locked },
        );
      }
    },
    hasKey: (feed) => {
      if (addedByProxy || vault?.has(feed) === true) return true;
      const entry = config.apiKeys[feed];
      return typeof entry === 'string' || entry?.key !== undefined;
    },
  };
}

/**
 * Forwards a vault's events to its client: `locked` as `vaultLocked`, its audit events as the client's, and a failed
 * rotation or lock to the client's log.
 */
export function forwardVaultEvents(
  vault: Vault,
  client: { events: EventBus<ThreatEvents>; logger: Logger; audit: (event: AuditEvent) => void },
): void {
  vault.events.on('locked', () => client.events.emit('vaultLocked'));
  vault.events.on('audit', (event) => client.audit(event));
  vault.events.on('error', (error, during) =>
    client.logger.error(
      { category: 'vault', err: error, during },
      `vault ${during} failed; the vault keeps its current keys`,
    ),
  );
}
