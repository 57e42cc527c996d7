import { ConfigurationError } from '../errors/configuration-error.js';
import { InsecureEndpointError } from '../errors/insecure-endpoint-error.js';

/**
 * Parses `url` and refuses it when the security options forbid it: anything but `https:` while `enforceHttps` is
 * on. Every endpoint the library talks to (feeds, SIEMs, webhooks, cloud) goes through this one check.
 *
 * @param what names the endpoint in the error (`feed_otx endpoint`, `webhook "ops" url`).
 * @throws {ConfigurationError} when `url` is not an absolute URL.
 * @throws {InsecureEndpointError} when it is not HTTPS and `enforceHttps` is on.
 */
export function checkEndpoint(url: string, what: string, policy: { enforceHttps: boolean }): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigurationError([{ path: what, message: `expected an absolute URL, got ${JSON.stringify(url)}` }]);
  }
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  if (policy.enforceHttps && parsed.protocol !== 'https:') {
    throw new InsecureEndpointError(
      shown,
      `${what} ${shown} is not HTTPS; security.enforceHttps refuses it (use https:// or set security.enforceHttps: false)`,
    );
  }
  return parsed;
}
