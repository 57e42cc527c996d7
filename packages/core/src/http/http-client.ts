import { createHttpTransport } from '#http-transport';
import { HttpError } from './http-error.js';

/** A request made through {@link HttpClient}. */
export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Aborts the request; the client then throws `HttpError` of kind `aborted`. */
  signal?: AbortSignal;
  /** Gives up after this many ms with `HttpError` of kind `timeout`. */
  timeoutMs?: number;
  /** Largest response body read for this request, in bytes (default: the client's `maxResponseBytes`). */
  maxResponseBytes?: number;
}

/** A response whose body has been read whole (bounded by `maxResponseBytes`). */
export interface HttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** Sends HTTP requests over a pooled keep-alive connection set that `close()` releases. */
export interface HttpClient {
  request(url: string | URL, init?: HttpRequest): Promise<HttpResponse>;
  /** Closes every pooled connection; the client can still be used afterwards (it opens new ones). */
  close(): Promise<void>;
}

/** Options of {@link createHttpClient}. */
export interface HttpClientOptions {
  /** Verify TLS certificates (default true). */
  validateCertificates?: boolean;
  /** Most connections kept per origin (default 16). */
  connectionsPerOrigin?: number;
  /** How long an idle keep-alive connection is kept, in ms (default 30 s). */
  keepAliveTimeoutMs?: number;
  /** Largest response body read, in bytes (default 8 MiB); a larger one fails with kind `too_large`. */
  maxResponseBytes?: number;
}

/**
 * Makes the HTTP client every feed and integration uses: undici with keep-alive pooling in Node.js, `fetch` in a
 * browser (package.json `imports` chooses, see `transport.ts`). One client is owned by a `ThreatClient`, which closes
 * it on `stop()` so no socket outlives the client.
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const maxBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  const transport = createHttpTransport(options);

  return {
    async request(url, init = {}) {
      const target = typeof url === 'string' ? new URL(url) : url;
      const shown = `${target.origin}${target.pathname}`;
      const signals: AbortSignal[] = [];
      if (init.signal) signals.push(init.signal);
      const timeout = init.timeoutMs === undefined ? undefined : AbortSignal.timeout(init.timeoutMs);
      if (timeout) signals.push(timeout);
      const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
      try {
        return await transport.send(
          target,
          { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal },
          init.maxResponseBytes ?? maxBytes,
          shown,
        );
      } catch (error) {
        if (HttpError.isInstance(error)) throw error;
        if (timeout?.aborted) {
          throw new HttpError('timeout', shown, `request to ${shown} timed out after ${init.timeoutMs} ms`, {
            cause: error,
          });
        }
        if (init.signal?.aborted) {
          throw new HttpError('aborted', shown, `request to ${shown} was aborted`, { cause: error });
        }
        const reason = (error as { code?: string; message?: string }).code ?? (error as Error).message;
        throw new HttpError('network', shown, `request to ${shown} failed: ${reason}`, { cause: error });
      }
    },
    close: () => transport.close(),
  };
}
