import { hostname } from 'node:os';
import type { Alert, Severity } from '@threatlib/core';
import {
  INSPECT_CUSTOM,
  type InspectFunction,
  type InspectOptions,
  type Integration,
  type IntegrationHealth,
  inspectView,
  redactedView,
  redactText,
  type SendAlertOptions,
} from '@threatlib/core/integration';
import { formatRfc5424, octetCountingFrame } from '@threatlib/core/logging';
import { EventFormatError } from '../formats/event-format-error.js';
import { formatAlert } from '../formats/event-formats.js';
import { type ForwarderPolicy, parseForwarderOptions, type ResolvedForwarderOptions } from './forwarder-options.js';
import { HttpsPoster } from './https-poster.js';
import { SiemForwarderError } from './siem-forwarder-error.js';
import { SyslogStream } from './syslog-stream.js';

/** The syslog facility of forwarded alerts: local0 (16). */
const FORWARDER_FACILITY = 16;

/** The syslog severity (RFC 5424 §6.2.1) of each alert severity. */
const SYSLOG_SEVERITY: Readonly<Record<Severity, number>> = {
  critical: 2,
  high: 3,
  medium: 4,
  low: 5,
  informational: 6,
};

const CONTENT_TYPES = {
  json: 'application/json',
  cef: 'text/plain; charset=utf-8',
  leef: 'text/plain; charset=utf-8',
} as const;

/** What a delivery resolves with (kept on the alert's `deliveries`). */
export interface ForwardReceipt {
  format: 'json' | 'cef' | 'leef';
  /** The endpoint without credentials or query string. */
  endpoint: string;
  /** The HTTP status, for an HTTP(S) endpoint. */
  status?: number;
  /** The bytes of the syslog frame written, for a syslog endpoint. */
  bytes?: number;
}

/** What the forwarder needs from the client besides its options. */
export interface SiemForwarderRuntime extends ForwarderPolicy {
  /** The RFC 5424 HOSTNAME (default: the machine's host name). */
  hostname?: string;
  /** The clock of the RFC 5424 TIMESTAMP (default: now). */
  now?: () => Date;
}

/**
 * `enterprise.siemIntegration`: every alert the client delivers is also sent to one endpoint, as JSON, CEF or LEEF.
 * Over HTTPS each alert is one POST (`application/json`, or `text/plain` for CEF and LEEF) and any 2xx is a
 * delivery; over `syslog+tls://` (RFC 5425) or `syslog+tcp://` (RFC 6587) each is one RFC 5424 message (facility
 * local0, severity from the alert's, APP-NAME `threatlib`, MSGID `alert`) framed by octet counting on one
 * long-lived connection, opened at the first alert and again after it breaks. One attempt per call: the client
 * retries with backoff.
 */
export class SiemForwarder implements Integration {
  readonly specificationVersion = 'v1' as const;
  readonly #options: ResolvedForwarderOptions;
  #shownOptions: ResolvedForwarderOptions | undefined;
  readonly #runtime: SiemForwarderRuntime;
  readonly #syslog: SyslogStream | undefined;
  readonly #http: HttpsPoster | undefined;
  #sent = 0;
  #failed = 0;
  #lastError: string | undefined;

  /**
   * @throws {ConfigurationError} `Configuration invalid: enterprise.siemIntegration.<option>: ...`.
   * @throws {InsecureEndpointError} for `http://` or `syslog+tcp://` while `security.enforceHttps` is on.
   */
  constructor(options: unknown, runtime: SiemForwarderRuntime) {
    this.#options = parseForwarderOptions(options, runtime);
    this.#runtime = runtime;
    const { transport, host, port, url, headers, tls } = this.#options;
    if (transport === 'syslog+tls' || transport === 'syslog+tcp') {
      this.#syslog = new SyslogStream({ host, port, tls: transport === 'syslog+tls' ? tls : undefined });
    } else {
      this.#http = new HttpsPoster({ url, headers, tls });
    }
  }

  /**
   * What the options resolved to, with each header value `[redacted]` and a secret query parameter of the URL too:
   * the forwarder keeps its credentials to itself, so that logging it shows none.
   */
  get options(): ResolvedForwarderOptions {
    this.#shownOptions ??= {
      ...redactedView(this.#options),
      url: new URL(redactText(this.#options.url.href)),
    };
    return this.#shownOptions;
  }

  /** What `JSON.stringify` writes of the forwarder: its format, endpoint (as messages show it) and header names. */
  toJSON(): { format: string; endpoint: string; transport: string; headers: Readonly<Record<string, string>> } {
    const { format, display, transport, headers } = this.options;
    return { format, endpoint: display, transport, headers };
  }

  /** What `util.inspect` and `console.log` show of the forwarder: {@link toJSON}'s view, never a header value. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('SiemForwarder', this.toJSON(), depth, options, inspect);
  }

  /** Nothing to open: the connection is made at the first alert, so an endpoint that is down delays no start. */
  start(): void {}

  /** Closes the syslog connection (after what was written is sent) or the HTTPS pool. */
  async stop(): Promise<void> {
    await this.#syslog?.close();
    await this.#http?.close();
  }

  /** Healthy until a delivery fails, and again once one succeeds; counts what was sent and what failed. */
  health(): IntegrationHealth {
    const { format, display } = this.options;
    return {
      healthy: this.#lastError === undefined,
      detail: this.#lastError ?? `${format.toUpperCase()} to ${display}`,
      sent: this.#sent,
      failed: this.#failed,
      ...(this.#syslog ? { connected: this.#syslog.connected } : {}),
    };
  }

  /**
   * Sends `alert` once, in the configured format.
   *
   * @throws {SiemForwarderError} naming the endpoint and why; `isRetryable` says whether another attempt may help.
   * @throws {EventFormatError} when the event cannot be written: an indicator value that is not one indicator of its
   *   type (a stored alert read back from a shared database may hold one); nothing is sent, and it is not retried.
   */
  async sendAlert(alert: Alert, options: SendAlertOptions = {}): Promise<ForwardReceipt> {
    const { format, display, leef } = this.options;
    try {
      const event = formatAlert(alert, format, leef);
      const receipt = this.#syslog
        ? { format, endpoint: display, bytes: await this.#syslog.write(this.#frame(alert, event), options.signal) }
        : await this.#post(event, options.signal);
      this.#sent += 1;
      this.#lastError = undefined;
      return receipt;
    } catch (error) {
      const failure =
        SiemForwarderError.isInstance(error) || EventFormatError.isInstance(error)
          ? error
          : this.#failure(error, options.signal);
      this.#failed += 1;
      this.#lastError = failure.message;
      throw failure;
    }
  }

  /** The forwarder knows nothing about indicators. */
  async enrichIndicator(): Promise<undefined> {
    return undefined;
  }

  #frame(alert: Alert, event: string): string {
    return octetCountingFrame(
      formatRfc5424({
        facility: FORWARDER_FACILITY,
        severity: SYSLOG_SEVERITY[alert.severity],
        timestamp: this.#runtime.now?.() ?? new Date(),
        hostname: this.#runtime.hostname ?? hostname(),
        appName: 'threatlib',
        procId: process.pid,
        msgId: 'alert',
        message: event,
      }),
    );
  }

  async #post(event: string, signal: AbortSignal | undefined): Promise<ForwardReceipt> {
    const { format, display, transport, headers } = this.#options;
    const answer = await (this.#http as HttpsPoster).post(event, CONTENT_TYPES[format], signal);
    if (answer.status >= 200 && answer.status < 300) return { format, endpoint: display, status: answer.status };
    const said = scrub(answer.body, Object.values(headers));
    throw new SiemForwarderError(`${display} answered HTTP ${answer.status}${said ? `: ${said}` : ''}`, {
      endpoint: display,
      transport,
      statusCode: answer.status,
      isRetryable: answer.status >= 500 || answer.status === 408 || answer.status === 429,
    });
  }

  #failure(error: unknown, signal: AbortSignal | undefined): SiemForwarderError {
    const { display, transport } = this.options;
    if (signal?.aborted) {
      return new SiemForwarderError(
        `sending to ${display} was cut short (the attempt timed out or the client stopped)`,
        {
          endpoint: display,
          transport,
          isRetryable: true,
          cause: error,
        },
      );
    }
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === 'string' ? code : ((error as Error).message ?? String(error));
    const untrusted = typeof code === 'string' && CERTIFICATE_ERRORS.test(code);
    return new SiemForwarderError(
      untrusted
        ? `${display}: TLS certificate refused (${reason}); trust its authority with tls.ca`
        : `${display} unreachable: ${reason}`,
      { endpoint: display, transport, isRetryable: !untrusted, cause: error },
    );
  }
}

/** Node's codes for a certificate that cannot be trusted: another attempt gives the same answer. */
const CERTIFICATE_ERRORS =
  /^(?:ERR_TLS_CERT_ALTNAME_INVALID|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_\w+)$/;

/**
 * `text` on one line and at most 200 characters, without the configured header values (each whole, and each word of
 * eight characters or more, so the token of `Bearer <token>` goes too) or anything else that looks like a secret.
 */
function scrub(text: string, headerValues: readonly string[]): string {
  let clean = text.replace(/\s+/g, ' ').trim();
  const secrets = headerValues.flatMap((value) => [value, ...value.split(/\s+/).filter((word) => word.length >= 8)]);
  for (const secret of secrets.sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
  }
  return redactText(clean).slice(0, 200);
}
