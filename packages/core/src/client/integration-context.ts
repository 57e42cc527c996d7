import type { ResolvedConfig } from '../config/schema.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { IntegrationContext } from '../integration/integration.js';
import { withCategory } from '../logging/categories.js';
import type { OAuth2TokenSource } from '../oauth2/client-credentials.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import type { ThreatClient } from './threat-client.js';

/** What an integration's context is made of: the client and what it holds privately. */
interface IntegrationContextDeps {
  client: ThreatClient;
  /** The client's configuration with its secrets. */
  config: ResolvedConfig;
  events: EventBus<ThreatEvents>;
  oauth2: OAuth2TokenSource | undefined;
}

/**
 * The context the integration `name` is started with: a view of the client (its configuration with its secrets,
 * not enumerable), a logger of its own, the event bus, the client's HTTP pool and OAuth 2.0 token source, and the
 * endpoint policy.
 */
export function integrationContext(
  name: string,
  { client, config, events, oauth2 }: IntegrationContextDeps,
): IntegrationContext {
  const view: Omit<IntegrationContext['client'], 'config'> = {
    get alerts() {
      return client.alerts;
    },
    scout: (indicator, options) => client.scout(indicator, options),
    correlate: (indicator, options) => client.correlate(indicator, options),
    integration: (integrationName: string) => client.integration(integrationName),
  };
  // The configuration with its secrets, not enumerable: an integration that keeps its context in a public field
  // (a plugin's `this.context = context`) shows no secret when it is logged or serialised.
  Object.defineProperty(view, 'config', { get: () => config, enumerable: false });
  return {
    name,
    optionsPath: `integrations.${name}`,
    client: view as IntegrationContext['client'],
    logger: withCategory(client.logger, 'integration', { integration: name }),
    events,
    get http() {
      return client.http;
    },
    ...(oauth2 ? { oauth2 } : {}),
    checkEndpoint: (url, what) => checkEndpoint(url, what, config.security),
  };
}
