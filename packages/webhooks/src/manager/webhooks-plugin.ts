import type { FastifyPluginAsync } from 'fastify';
import type { WebhookManager } from './webhook-manager.js';

/** Options of {@link webhooksPlugin}. */
export interface WebhooksPluginOptions {
  /** The manager whose routes, handlers and authentication are served. */
  manager: WebhookManager;
}

/**
 * The incoming webhook routes of a {@link WebhookManager} as a fastify plugin: `POST <server.path>` and `POST
 * <server.path>/<eventName>`, with the manager's signature checks, replay cache, limits and handlers. Encapsulated:
 * its raw-body parser, error answers and hardening headers stay inside it. The same as `manager.plugin`.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(webhooksPlugin, { manager: webhooks });
 * ```
 */
export const webhooksPlugin: FastifyPluginAsync<WebhooksPluginOptions> = async (app, { manager }) => {
  await manager.plugin(app, {});
};
