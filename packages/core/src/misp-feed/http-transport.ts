import type { HttpClient } from '../http/http-client.js';
import { HttpError } from '../http/http-error.js';
import { checkFeedFileName, MispFeedReadError, type MispFeedTransport } from './misp-feed-transport.js';

/** Options of {@link httpTransport}. */
export interface HttpTransportOptions {
  /** The feed's base URL (checked by the configuration: http(s), no query, fragment or credentials). */
  readonly url: string;
  /** Sent with every request; never put in a message. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Longest wait for one file, in ms. */
  readonly timeoutMs: number;
}

/**
 * A MISP feed served over HTTP(S), read as MISP's feed fetcher reads it (MISP/MISP app/Model/Feed.php
 * `feedGetUriRemote`): `GET <url>/manifest.json`, `GET <url>/<uuid>.json`, `Accept: application/json`, the manifest
 * asked with `If-None-Match` once it has an `ETag`. Unlike MISP, redirects are not followed (the answer names where
 * it points: configure that URL), and a zip archive is not unpacked.
 */
export function httpTransport(http: HttpClient, options: HttpTransportOptions): MispFeedTransport {
  const base = options.url.replace(/\/+$/, '');
  const shownBase = (() => {
    const url = new URL(base);
    return `${url.origin}${url.pathname}`;
  })();
  return {
    location: shownBase,
    async read(name, read) {
      const target = `${base}/${checkFeedFileName(name)}`;
      const shown = `${shownBase.replace(/\/+$/, '')}/${name}`;
      let response: Awaited<ReturnType<HttpClient['request']>>;
      try {
        response = await http.request(target, {
          headers: {
            accept: 'application/json',
            ...options.headers,
            ...(read.etag === undefined ? {} : { 'if-none-match': read.etag }),
          },
          timeoutMs: options.timeoutMs,
          maxResponseBytes: read.maxBytes,
          ...(read.signal ? { signal: read.signal } : {}),
        });
      } catch (error) {
        if (HttpError.isInstance(error) && error.kind === 'too_large') {
          throw new MispFeedReadError('too large', `${shown} is larger than ${read.maxBytes} bytes`, { cause: error });
        }
        // HttpError messages name the URL without its query and never a header.
        throw new MispFeedReadError('unreadable', (error as Error).message, { cause: error });
      }
      const { status, headers } = response;
      if (status === 304 && read.etag !== undefined) return 'unchanged';
      if (status === 404 || status === 410) throw new MispFeedReadError('missing', `${shown} answered HTTP ${status}`);
      if (status >= 300 && status < 400) {
        const location = redirectTarget(headers.location, target);
        throw new MispFeedReadError(
          'unreadable',
          `${shown} answered HTTP ${status}${location ? ` (to ${location})` : ''}; MISP feeds are read without ` +
            'following redirects: configure the URL the feed is at',
        );
      }
      if (status === 401 || status === 403) {
        throw new MispFeedReadError('unreadable', `${shown} refused access (HTTP ${status}): check the list's headers`);
      }
      if (status !== 200) throw new MispFeedReadError('unreadable', `${shown} answered HTTP ${status}`);
      const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (type === 'application/zip') {
        throw new MispFeedReadError('unreadable', `${shown} is a zip archive, which threatlib does not unpack`);
      }
      const text = response.body.startsWith('\uFEFF') ? response.body.slice(1) : response.body;
      const etag = headers.etag;
      return etag === undefined || etag.length > 512 ? { text } : { text, etag };
    },
  };
}

/** Where a redirect points, as messages show it: origin and path, no query (which may hold a key). */
function redirectTarget(location: string | undefined, from: string): string | undefined {
  if (location === undefined) return undefined;
  try {
    const url = new URL(location, from);
    return `${url.origin}${url.pathname}`.slice(0, 300);
  } catch {
    return undefined;
  }
}
