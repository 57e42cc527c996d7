import Fastify, { type FastifyInstance } from 'fastify';
import { WebhookError } from '../errors/webhook-error.js';
import type { ResolvedIncomingOptions } from './incoming-options.js';
import type { IncomingWebhooks } from './incoming-webhooks.js';

/** The manager's own fastify server, serving the incoming routes on `server.host`:`server.port`. */
export class WebhookServer {
  readonly #options: ResolvedIncomingOptions['server'];
  readonly #incoming: IncomingWebhooks;
  #app: FastifyInstance | undefined;
  #address: string | undefined;

  constructor(options: ResolvedIncomingOptions['server'], incoming: IncomingWebhooks) {
    this.#options = options;
    this.#incoming = incoming;
  }

  get address(): string | undefined {
    return this.#address;
  }

  async start(): Promise<void> {
    if (this.#app) return;
    const app = Fastify({ logger: false });
    await app.register((scope) => this.#incoming.routes(scope));
    try {
      this.#address = await app.listen({ port: this.#options.port ?? 0, host: this.#options.host });
    } catch (error) {
      await app.close();
      throw new WebhookError(
        'start',
        `the webhook server could not listen on ${this.#options.host}:${this.#options.port}`,
        {
          cause: error,
          isRetryable: true,
        },
      );
    }
    this.#app = app;
  }

  async stop(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    this.#address = undefined;
    await app?.close();
  }
}
