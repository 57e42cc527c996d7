// The HTTP the upload API and the workspace read go through: Azure's own request pipeline, which fetches, caches and
// renews the bearer token from the TokenCredential (for ARM's audience) and sends over one keep-alive agent that
// `close()` destroys. Sources:
// - createPipelineFromOptions (retryOptions, agent), bearerTokenAuthenticationPolicy ({credential, scopes}),
//   createDefaultHttpClient, createPipelineRequest ({url, method, headers, body, timeout, abortSignal}):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/core-rest-pipeline
import { Agent } from 'node:https';
import {
  bearerTokenAuthenticationPolicy,
  createDefaultHttpClient,
  createHttpHeaders,
  createPipelineFromOptions,
  createPipelineRequest,
  type HttpClient,
  type Pipeline,
} from '@azure/core-rest-pipeline';
import type { TokenCredential } from '@azure/identity';

/** An answer, whatever its status. */
export interface RestAnswer {
  status: number;
  /** A header by its name in lower case. */
  header(name: string): string | undefined;
  body: string | undefined;
}

/** Sends authenticated JSON requests; the caller reads the status. */
export class SentinelRest {
  readonly agent = new Agent({ keepAlive: true });
  readonly #pipeline: Pipeline;
  readonly #client: HttpClient = createDefaultHttpClient();
  readonly #timeout: number;

  constructor(options: { credential: TokenCredential; scope: string; timeout: number }) {
    this.#timeout = options.timeout;
    // Azure's retries off: a 429 is waited out by the integration's scheduler, on its clock.
    this.#pipeline = createPipelineFromOptions({
      retryOptions: { maxRetries: 0 },
      agent: this.agent,
      userAgentOptions: { userAgentPrefix: 'threatlib-cloud' },
    });
    this.#pipeline.addPolicy(
      bearerTokenAuthenticationPolicy({ credential: options.credential, scopes: options.scope }),
    );
  }

  /**
   * Sends one request. Rejects when no answer came (network, TLS, timeout) or the token could not be had (the
   * credential's error, with Entra ID's reason).
   */
  async send(method: 'GET' | 'POST', url: string, body?: unknown, signal?: AbortSignal): Promise<RestAnswer> {
    const request = createPipelineRequest({
      url,
      method,
      headers: createHttpHeaders({
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeout: this.#timeout,
      ...(signal === undefined ? {} : { abortSignal: signal }),
    });
    const response = await this.#pipeline.sendRequest(this.#client, request);
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: response.bodyAsText ?? undefined,
    };
  }

  /** Closes the connections kept alive. */
  close(): void {
    this.agent.destroy();
  }
}
