import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** A Content-Security-Policy's directives, as helmet takes them (`{'default-src': ["'none'"]}`). */
export type CspDirectives = Record<string, string[]>;

/**
 * The CSP of every JSON answer (the REST API's, a webhook receiver's): JSON and problem documents load nothing, run
 * nothing and may not be framed. A page of HTML (the REST server's `/docs`) passes its own.
 */
const API_CSP: CspDirectives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The headers of {@link API_CSP}, worked out on first use: they never change. */
let apiHeaders: Readonly<Record<string, string>> | undefined;

/**
 * The response headers that harden every answer, chosen by helmet (the maintained set: `X-Content-Type-Options:
 * nosniff`, `X-Frame-Options: DENY`, `Strict-Transport-Security`, `Referrer-Policy: no-referrer`, the
 * Cross-Origin policies, ...) with `csp` as the Content-Security-Policy (by default one that loads nothing), plus
 * `Cache-Control: no-store`: verdicts, alerts and health are live data, and a shared cache must never keep one.
 *
 * Helmet is run once, here, against a recording response, and a server sets the headers it recorded on each answer
 * in one call: running helmet per request (what `@fastify/helmet` does, rebuilding the middleware each time) costs
 * several microseconds a request for headers that never change.
 *
 * @example
 * ```ts
 * const hardening = securityHeaders();
 * app.addHook('onSend', async (_request, reply) => void reply.headers(hardening));
 * ```
 */
export function securityHeaders(csp?: CspDirectives): Readonly<Record<string, string>> {
  if (csp === undefined) {
    apiHeaders ??= recordHeaders(API_CSP);
    return apiHeaders;
  }
  return recordHeaders(csp);
}

function recordHeaders(csp: CspDirectives): Readonly<Record<string, string>> {
  const options: HelmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: csp },
    xFrameOptions: { action: 'deny' },
  };
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return recorder;
    },
    removeHeader() {},
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  headers['cache-control'] = 'no-store';
  return Object.freeze(headers);
}
