import type { Clock, Logger } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import type { ResolvedIncomingOptions } from './incoming-options.js';

/** The handler of one incoming event: gets the payload's `data`; resolving answers 204, throwing answers 500. */
export type IncomingHandler<Data = unknown> = (data: Data) => Promise<unknown> | unknown;

/** What the incoming side gets from the manager. */
export interface IncomingRuntime {
  logger: Logger;
  clock: Clock;
}

/** The incoming side of a `WebhookManager`: the handlers by event, and the routes that verify and run them. */
export class IncomingWebhooks {
  readonly #options: ResolvedIncomingOptions;
  readonly #handlers = new Map<string, IncomingHandler[]>();

  constructor(options: ResolvedIncomingOptions, _runtime: IncomingRuntime) {
    this.#options = options;
  }

  on(eventName: string, handler: IncomingHandler): void {
    const list = this.#handlers.get(eventName) ?? [];
    list.push(handler);
    this.#handlers.set(eventName, list);
  }

  /** Registers the webhook routes on `app` (an encapsulated fastify context). */
  async routes(app: FastifyInstance): Promise<void> {
    const path = this.#options.server.path;
    const notBuilt = async () => {
      throw new Error('incoming webhooks are not built yet');
    };
    app.post(path, notBuilt);
    app.post(`${path}/:event`, notBuilt);
  }
}
