import { ConfigurationError } from '../errors/configuration-error.js';
import { IntegrationError } from '../errors/integration-error.js';
import type { Feed } from '../feeds/feed.js';
import type { Integration, IntegrationClass } from '../integration/integration.js';
import type { ClientParts } from './client-wiring.js';

// The changes a running client accepts, each recorded in the audit log (`security.enableAuditLog`).

function now(parts: ClientParts): string {
  return new Date(parts.clock.now()).toISOString();
}

/** Adds a feed that every later lookup asks (see `ThreatClient.registerFeed`). */
export function registerFeed(parts: ClientParts, feed: Feed): void {
  parts.feeds.registry.add(feed);
  parts.feeds.registered.push(feed.id);
  parts.audit({ action: 'config_changed', at: now(parts), option: 'sources', detail: { added: feed.id } });
}

/** Changes how many feed requests may run at once (see `ThreatClient.updateConcurrency`). */
export function updateConcurrency(parts: ClientParts, n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > 50) {
    throw new ConfigurationError([
      { path: 'performance.maxConcurrency', message: `expected a whole number from 1 to 50, got ${String(n)}` },
    ]);
  }
  parts.scheduler.setConcurrency(n);
  parts.logger.info({ maxConcurrency: n }, 'concurrency updated');
  parts.audit({
    action: 'config_changed',
    at: now(parts),
    option: 'performance.maxConcurrency',
    detail: { value: n },
  });
}

/** Registers an integration while the client is idle (see `ThreatClient.registerIntegration`). */
export function registerIntegration(
  parts: ClientParts,
  name: string,
  integration: IntegrationClass<never>,
  options: unknown,
): Integration {
  const state = parts.lifecycle.state;
  if (state !== 'idle') {
    throw new IntegrationError(
      String(name),
      'register',
      `Integration "${String(name)}" cannot be registered while the client is ${state}; register before start()`,
    );
  }
  const resolvedOptions = options ?? (parts.config.integrations as Record<string, unknown>)[name] ?? {};
  const instance = parts.integrations.register(name, integration, resolvedOptions);
  parts.audit({ action: 'config_changed', at: now(parts), option: 'integrations', detail: { registered: name } });
  return instance;
}
