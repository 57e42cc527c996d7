import type { ResolvedConfig } from '../config/schema.js';
import type { HttpRequest } from '../http/http-client.js';

/** Where feed requests go when `browser.corsProxy` is set, and what the proxy is sent besides each request. */
export interface CorsProxy {
  /** The URL prefix the full feed URL is appended to (ends in `/`). */
  readonly prefix: string;
  /** Headers for the proxy itself (its credentials), added to every request. */
  readonly headers: Readonly<Record<string, string>>;
  /** The proxy adds the feeds' API keys: feeds that need one are asked without it. */
  readonly addsKeys: boolean;
}

/**
 * The API key a feed is given when the proxy adds the real one (`browser.proxy.addsKeys`): the feed's code then
 * asks as with a key, and the header it puts this in is taken out before the request leaves (see {@link throughProxy}).
 */
export const KEY_ADDED_BY_PROXY = 'threatlib-key-added-by-proxy';

/** The CORS proxy `browser` configures, or undefined when feeds are asked directly. */
export function corsProxyOf(browser: ResolvedConfig['browser']): CorsProxy | undefined {
  if (browser.corsProxy === undefined) return undefined;
  return { prefix: browser.corsProxy, headers: browser.proxy.headers ?? {}, addsKeys: browser.proxy.addsKeys };
}

/**
 * A feed request as sent through `proxy`: the cors-anywhere convention, the full feed URL appended as is to the
 * prefix (`https://proxy.example/` + `https://otx.alienvault.com/api/v1/...`), with the proxy's headers added and
 * the stand-in key of {@link KEY_ADDED_BY_PROXY} left out.
 */
export function throughProxy(proxy: CorsProxy, url: string | URL, init: HttpRequest = {}): [string, HttpRequest] {
  const target = typeof url === 'string' ? new URL(url).href : url.href;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    if (value !== KEY_ADDED_BY_PROXY) headers[name] = value;
  }
  return [`${proxy.prefix}${target}`, { ...init, headers: { ...headers, ...proxy.headers } }];
}
