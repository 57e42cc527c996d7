import type { HttpRequest, HttpResponse } from './http-client.js';

/** What {@link HttpTransport.send} is given: the request with its method defaulted and its signals combined. */
export interface TransportRequest {
  method: NonNullable<HttpRequest['method']>;
  headers: Record<string, string> | undefined;
  body: string | Uint8Array | undefined;
  signal: AbortSignal | undefined;
}

/**
 * How one runtime sends a request and reads its body whole: undici in Node.js (`transport.node.ts`), `fetch` in a
 * page (`transport.browser.ts`), chosen by package.json `imports` (`#http-transport`). Neither follows a redirect.
 * Both throw `HttpError` of kind `too_large` past `limit` bytes; any other failure is thrown as the runtime gives it,
 * and the client maps it (timeout, aborted, network).
 */
export interface HttpTransport {
  send(target: URL, init: TransportRequest, limit: number, shown: string): Promise<HttpResponse>;
  close(): Promise<void>;
}
