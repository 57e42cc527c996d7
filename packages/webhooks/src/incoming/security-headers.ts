import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

let headers: Readonly<Record<string, string>> | undefined;

/**
 * The response headers that harden every webhook answer, the REST server's set: helmet's (`X-Content-Type-Options:
 * nosniff`, `Strict-Transport-Security`, `Referrer-Policy: no-referrer`, the Cross-Origin policies...) with a CSP
 * that loads nothing and `X-Frame-Options: DENY`, plus `Cache-Control: no-store`. Helmet runs once, against a
 * recording response; each answer gets the recorded headers in one call.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  if (headers) return headers;
  const recorded: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      recorded[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return recorder;
    },
    removeHeader() {},
  };
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
        'frame-ancestors': ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
  })({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  recorded['cache-control'] = 'no-store';
  headers = Object.freeze(recorded);
  return headers;
}
