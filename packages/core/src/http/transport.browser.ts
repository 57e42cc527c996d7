import type { HttpClientOptions, HttpResponse } from './http-client.js';
import { HttpError } from './http-error.js';
import type { HttpTransport, TransportRequest } from './transport.js';

/*
 * The HTTP transport in a page (chosen by package.json `imports`, `#http-transport`, condition `browser`): the
 * platform's `fetch`. The browser owns connection pooling and certificate checks, so `connectionsPerOrigin`,
 * `keepAliveTimeoutMs` and `validateCertificates` have no effect here (certificates are always checked). As in Node,
 * no redirect is followed: with `redirect: 'manual'` a page sees no status or `Location` of a redirect (an
 * "opaque redirect"), so one fails as a network failure naming it, never as an answer. No cookie or credential of
 * the page is sent to a feed (`credentials: 'omit'`).
 */

/** A transport over `fetch`; `close()` has nothing to release. */
export function createHttpTransport(_options: HttpClientOptions): HttpTransport {
  return {
    async send(target: URL, init: TransportRequest, limit: number, shown: string): Promise<HttpResponse> {
      const response = await fetch(target, {
        method: init.method,
        ...(init.headers === undefined ? {} : { headers: init.headers }),
        ...(init.body === undefined ? {} : { body: init.body }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
        redirect: 'manual',
        credentials: 'omit',
      });
      if (response.type === 'opaqueredirect') {
        throw new HttpError('network', shown, `request to ${shown} failed: redirected, and redirects are not followed`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      const reader = response.body?.getReader();
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel().catch(() => undefined);
          throw new HttpError('too_large', shown, `response from ${shown} is larger than ${limit} bytes`);
        }
        chunks.push(value);
      }
      const whole = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        whole.set(chunk, at);
        at += chunk.byteLength;
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return { status: response.status, headers, body: new TextDecoder().decode(whole) };
    },
    async close() {},
  };
}
