// The example plugin from the README: an integration that posts every alert as JSON to `<endpoint>/alerts` with a
// bearer token and resolves with the receiver's parsed JSON answer. Third-party plugins follow the same contract.
import type { Alert } from '@threatlib/core';
import type { Integration, IntegrationContext, IntegrationHealth } from '@threatlib/core/integration';

/** Options of {@link AlertWebhookPlugin}. */
export interface AlertWebhookOptions {
  /** Base URL of the receiver; alerts go to `<endpoint>/alerts`. */
  endpoint: string;
  /** Bearer token the receiver expects. */
  token: string;
  /** Give up on a delivery after this many ms (default 10000). */
  timeoutMs?: number;
}

/** Posts alerts to a webhook receiver. */
export class AlertWebhookPlugin implements Integration {
  readonly specificationVersion = 'v1';
  readonly #url: URL;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #context: IntegrationContext;
  #delivered = 0;

  constructor(options: AlertWebhookOptions, context: IntegrationContext) {
    if (typeof options?.token !== 'string' || options.token.length === 0) {
      throw new Error('options.token is required: the bearer token the receiver expects');
    }
    if (typeof options.endpoint !== 'string') throw new Error('options.endpoint is required: the receiver base URL');
    // checkEndpoint refuses plain HTTP while security.enforceHttps is on.
    this.#url = new URL(
      `${context.checkEndpoint(options.endpoint, `integration "${context.name}" endpoint`).href.replace(/\/+$/, '')}/alerts`,
    );
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#context = context;
  }

  async sendAlert(alert: Alert): Promise<unknown> {
    const response = await this.#context.http.request(this.#url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${this.#token}`,
      },
      body: JSON.stringify(alert),
      timeoutMs: this.#timeoutMs,
    });
    if (response.status < 200 || response.status >= 300) {
      throw new Error(`alert receiver ${this.#url.origin} answered HTTP ${response.status}`);
    }
    this.#delivered += 1;
    return response.body === '' ? undefined : JSON.parse(response.body);
  }

  async enrichIndicator(): Promise<undefined> {
    // A webhook receiver knows nothing about indicators.
    return undefined;
  }

  health(): IntegrationHealth {
    return { healthy: true, detail: `${this.#delivered} alerts delivered to ${this.#url.origin}` };
  }
}
