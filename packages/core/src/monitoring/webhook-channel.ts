import { createHttpClient, type HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import type { AlertChannel } from './alert-channel.js';
import { alertWebhookBody, type MonitoringAlert } from './monitoring-alert.js';

/** Options of {@link WebhookAlertChannel}: `enterprise.monitoring.alerts.webhook` and the security options. */
export interface WebhookAlertChannelOptions {
  url: string;
  /** Sent with every request (an Authorization header); never logged nor put in an error. */
  headers: Readonly<Record<string, string>>;
  validateCertificates: boolean;
  /** Most time one delivery may take, in ms (default 5 s). */
  timeoutMs?: number;
}

/**
 * POSTs each monitoring alert as JSON (`{type: 'threatlib.monitoring.alert', version: 1, condition, feed, at,
 * summary, action, details}`) to a URL, through a keep-alive pool of its own that `close()` releases. Any 2xx answer
 * is a delivery. Errors name the receiver by its origin only: webhook URLs often carry their secret in the path.
 */
export class WebhookAlertChannel implements AlertChannel {
  readonly name = 'webhook';
  readonly #options: WebhookAlertChannelOptions;
  readonly #origin: string;
  #http: HttpClient | undefined;

  constructor(options: WebhookAlertChannelOptions) {
    this.#options = options;
    this.#origin = new URL(options.url).origin;
  }

  async send(alert: MonitoringAlert): Promise<void> {
    this.#http ??= createHttpClient({
      validateCertificates: this.#options.validateCertificates,
      connectionsPerOrigin: 2,
      keepAliveTimeoutMs: 5_000,
      maxResponseBytes: 64 * 1024,
    });
    let status: number;
    try {
      ({ status } = await this.#http.request(this.#options.url, {
        method: 'POST',
        headers: { ...this.#options.headers, 'content-type': 'application/json' },
        body: alertWebhookBody(alert),
        timeoutMs: this.#options.timeoutMs ?? 5_000,
      }));
    } catch (error) {
      const kind = HttpError.isInstance(error) ? error.kind : 'network';
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      throw new Error(
        `webhook ${this.#origin} could not be reached (${kind}${typeof code === 'string' ? `: ${code}` : ''})`,
      );
    }
    if (status < 200 || status >= 300) throw new Error(`webhook ${this.#origin} answered HTTP ${status}`);
  }

  async close(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    await http?.close();
  }
}
