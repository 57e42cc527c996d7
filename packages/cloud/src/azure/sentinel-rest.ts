// The HTTP the upload API and the workspace read go through: Azure's own request pipeline, which fetches, caches and
// renews the bearer token from the TokenCredential (for ARM's audience) and sends over one keep-alive agent that
// `close()` destroys. Sources:
// - createPipelineFromOptions (retryOptions, agent), bearerTokenAuthenticationPolicy ({credential, scopes}),
//   createDefaultHttpClient, createPipelineRequest ({url, method, headers, body, timeout, abortSignal}):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/core-rest-pipeline
import { Agent } from 'node:https';
import type { HttpClient, Pipeline } from '@azure/core-rest-pipeline';
import type { TokenCredential } from '@azure/identity';
import type { AzureSdk } from './azure-sdk.js';

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
  readonly #sdk: AzureSdk['pipeline'];
  readonly #pipeline: Pipeline;
  readonly #client: HttpClient;
  readonly #timeout: number;

  constructor(options: { credential: TokenCredential; scope: string; timeout: number; sdk: AzureSdk['pipeline'] }) {
    const sdk = options.sdk;
    this.#sdk = sdk;
    this.#client = sdk.createDefaultHttpClient();
    this.#timeout = options.timeout;
    // Azure's retries off: a 429 is waited out by the integration's scheduler, on its clock.
    this.#pipeline = sdk.createPipelineFromOptions({
      retryOptions: { maxRetries: 0 },
      agent: this.agent,
      userAgentOptions: { userAgentPrefix: 'threatlib-cloud' },
    });
    this.#pipeline.addPolicy(
      sdk.bearerTokenAuthenticationPolicy({ credential: options.credential, scopes: options.scope }),
    );
  }

  /**
   * Sends one request. Rejects when no answer came (network, TLS, timeout) or the token could not be had (the
   * credential's error, with Entra ID's reason).
   */
  async send(method: 'GET' | 'POST', url: string, body?: unknown, signal?: AbortSignal): Promise<RestAnswer> {
    const request = this.#sdk.createPipelineRequest({
      url,
      method,
      headers: this.#sdk.createHttpHeaders({
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
