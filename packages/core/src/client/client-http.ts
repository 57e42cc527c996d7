import type { SecurityConfig } from '../config/schema.js';
import { createHttpClient, type HttpClient } from '../http/http-client.js';
import type { Logger } from '../logging/logger.js';

/** A client's pooled HTTP client: opened on first use, closed by `stop()`, opened again by the next use. */
export class ClientHttp {
  readonly #security: SecurityConfig;
  readonly #logger: Logger;
  #http: HttpClient | undefined;

  constructor(security: SecurityConfig, logger: Logger) {
    this.#security = security;
    this.#logger = logger;
  }

  /** The pool, opened now if it is not open. */
  get client(): HttpClient {
    if (!this.#http) {
      if (!this.#security.validateCertificates) {
        this.#logger.warn(
          { path: 'security.validateCertificates' },
          'TLS certificate verification is off for this client: anyone on the network path can impersonate a feed',
        );
      }
      this.#http = createHttpClient({
        validateCertificates: this.#security.validateCertificates,
        // As many connections per origin as requests may run at once (50 at most): a request the scheduler has let
        // go must not then wait in the pool for a connection and leave in a burst with others.
        connectionsPerOrigin: 50,
      });
    }
    return this.#http;
  }

  /** Closes the pool's connections, if it is open. */
  async close(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    await http?.close();
  }
}
