import { isCertificateFailure, NETWORK_FAILURE_WORDS } from '@threatlib/core/integration';
import { Agent, request, errors as undiciErrors } from 'undici';
import type { PlatformCall } from '../platforms/platform.js';
import type { ResolvedCommonOptions } from './connector-options.js';

/** One HTTP request a platform makes through the connector. */
export interface SiemHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query (`/services/collector/event?channel=...`). */
  path: string;
  /** Default: the connector's `host`. */
  host?: string;
  /** Default: the connector's `port`. */
  port?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** The SIEM's answer, its body read as text. */
export interface SiemHttpResponse {
  statusCode: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/** The most body text read from one answer; a longer one is cut and fails to parse rather than filling memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * HTTP over the connector's own undici agent, which carries its TLS options (`ca`, `rejectUnauthorized`) and is
 * closed by the connector's `stop()`. A request that gets no answer rejects with `SiemUnreachableError` (retryable,
 * except for a certificate the connector cannot trust); every answer resolves, whatever its status: the platform
 * maps it.
 */
export class SiemHttp {
  readonly #agent: Agent;
  readonly #options: ResolvedCommonOptions;

  constructor(options: ResolvedCommonOptions) {
    this.#options = options;
    const { ca, rejectUnauthorized, servername } = options.tls;
    this.#agent = new Agent({
      connect: {
        rejectUnauthorized,
        ...(ca === undefined ? {} : { ca: Array.isArray(ca) ? ca.map(pemText) : pemText(ca) }),
        ...(servername === undefined ? {} : { servername }),
      },
      // The attempt's signal bounds each request; these only keep an idle socket from outliving its use.
      keepAliveTimeout: 10_000,
      connections: 16,
    });
  }

  /** `protocol://host:port` of the connector, or of `host`/`port` when given. */
  origin(host = this.#options.host, port = this.#options.port): string {
    const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    return `${this.#options.protocol}://${shown}:${port}`;
  }

  /** Sends one request within `call` (its signal aborts it) and reads the whole answer. */
  async request(call: PlatformCall, req: SiemHttpRequest): Promise<SiemHttpResponse> {
    const origin = this.origin(req.host, req.port);
    const address = `${req.host ?? this.#options.host}:${req.port ?? this.#options.port}`;
    try {
      const response = await request(`${origin}${req.path}`, {
        dispatcher: this.#agent,
        method: req.method,
        headers: req.headers ?? {},
        ...(req.body === undefined ? {} : { body: req.body }),
        signal: call.signal,
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      const body = await readText(response.body);
      return { statusCode: response.statusCode, headers, body };
    } catch (error) {
      if (call.signal.aborted) throw call.signal.reason ?? error;
      throw call.errors.unreachable(networkReason(error), {
        address,
        cause: error,
        isRetryable: !isCertificateFailure(codeOf(error)),
      });
    }
  }

  /** Closes every connection of the agent. */
  async close(): Promise<void> {
    await this.#agent.close();
  }
}

async function readText(body: AsyncIterable<Uint8Array> & { dump?: () => Promise<void> }): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function pemText(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
}

/** The shared network words, and what a failed TLS handshake with a SIEM most often means. */
const HTTP_FAILURE_WORDS: Readonly<Record<string, string>> = {
  ...NETWORK_FAILURE_WORDS,
  EPROTO: 'TLS handshake failed (is the SIEM speaking HTTPS on this port?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the SIEM speaking HTTPS on this port?)',
};

/** The network failure in a few words (`connection refused (ECONNREFUSED)`), without any request detail. */
function networkReason(error: unknown): string {
  const code = codeOf(error);
  if (isCertificateFailure(code)) {
    return `TLS certificate not trusted (${code}); pass its authority as tls.ca`;
  }
  if (code !== undefined) return `${HTTP_FAILURE_WORDS[code] ?? 'network error'} (${code})`;
  if (error instanceof undiciErrors.UndiciError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
