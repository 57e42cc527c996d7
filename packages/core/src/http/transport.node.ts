import type { Agent } from 'undici';
import type { HttpClientOptions, HttpResponse } from './http-client.js';
import { HttpError } from './http-error.js';
import type { HttpTransport, TransportRequest } from './transport.js';

/*
 * The HTTP transport in Node.js (chosen by package.json `imports`, `#http-transport`, condition `default`): undici
 * with a keep-alive pool per client, its per-origin connection limit, and certificate checks that can be turned off.
 * undici is imported on the first request, not with the module: it is 110 modules, and most processes that import
 * core's main entry (a CLI, a test, a page's build step) never send a request.
 */

let undici: Promise<typeof import('undici')> | undefined;

/** A transport over an undici `Agent` made on the first request, closed (and made again if used) by `close()`. */
export function createHttpTransport(options: HttpClientOptions): HttpTransport {
  let agent: Agent | undefined;
  return {
    async send(target: URL, init: TransportRequest, limit: number, shown: string): Promise<HttpResponse> {
      undici ??= import('undici');
      const { Agent, request } = await undici;
      agent ??= new Agent({
        connections: options.connectionsPerOrigin ?? 16,
        keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
        connect: { rejectUnauthorized: options.validateCertificates ?? true },
      });
      const response = await request(target, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal: init.signal,
        dispatcher: agent,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > limit) {
          response.body.destroy();
          throw new HttpError('too_large', shown, `response from ${shown} is larger than ${limit} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: response.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') };
    },
    async close() {
      const current = agent;
      agent = undefined;
      await current?.close();
    },
  };
}
