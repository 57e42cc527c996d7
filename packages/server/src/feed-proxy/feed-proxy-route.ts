import type { ThreatClient } from '@threatlib/core';
import { BUILTIN_FEEDS, isBuiltinFeedId } from '@threatlib/core/feeds';
import { configWithSecrets } from '@threatlib/core/integration';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ProblemError } from '../http/problem.js';

/*
 * The feed proxy for pages (issue 24, `browser.corsProxy`): `GET|POST <prefix>/proxy/<full feed URL>`, the
 * cors-anywhere convention (`https://api.example/api/v1/proxy/` + `https://otx.alienvault.com/api/v1/...`). It is a
 * route of the mounted API, so it is authenticated and rate-limited like every other, and it:
 *
 * - reaches only the configured feeds: the target must be under the endpoint of one of the client's `sources`
 *   (`apiKeys[feed].endpoint`, or the feed's default), same scheme, host and port, and a path below the endpoint's;
 *   no user info, no dot segments (plain or percent-encoded), no backslashes or control characters;
 * - adds that feed's API key server-side (in the feed's own header), so the page never holds a key, and sends
 *   nothing else of the page's request (no cookie, no Authorization, no header the page chose);
 * - follows no redirect (a feed that redirects is answered 502: the key must not travel elsewhere);
 * - bounds the feed's time (`timeoutMs`) and the answer's size (`maxResponseBytes`), and passes back only the
 *   status, `content-type`, `retry-after` and rate-limit headers, with the key blanked out should the feed echo it.
 *
 * A POST's body is JSON, as for every route of the API: an object of strings, sent on to the feed as a form
 * (`application/x-www-form-urlencoded`, what URLhaus, the one feed asked by POST, takes). A form is taken as well,
 * and sent on as it came: it is what core's client sends through `browser.corsProxy` (URLhaus's own request).
 */

/** Options of the feed proxy route. */
export interface FeedProxyOptions {
  /** Longest wait for a feed, in ms. Default 15,000. */
  timeoutMs?: number;
  /** Largest feed answer passed back, in bytes. Default 4 MiB. */
  maxResponseBytes?: number;
}

const PROBLEM_TARGET_REFUSED = 'https://threatlib.dev/problems/proxy-target-refused';
const PROBLEM_FEED_FAILED = 'https://threatlib.dev/problems/feed-unavailable';
const PASSED_HEADERS = /^(?:content-type|retry-after|x-ratelimit-[a-z-]+|ratelimit(?:-[a-z]+)?)$/;
const MAX_FORM_FIELDS = 20;
const MAX_TARGET_LENGTH = 8192;

interface ProxyTarget {
  feed: string;
  origin: string;
  /** The endpoint's path with one trailing slash. */
  path: string;
  keyHeader: string;
}

/** The feeds a page may reach through the proxy: the client's sources that are built-in feeds, at their endpoints. */
function proxyTargets(client: ThreatClient): ProxyTarget[] {
  const { apiKeys } = configWithSecrets(client);
  const targets: ProxyTarget[] = [];
  for (const feed of client.sources) {
    if (!isBuiltinFeedId(feed)) continue;
    const entry = apiKeys[feed];
    const endpoint = new URL(
      (typeof entry === 'object' ? entry?.endpoint : undefined) ?? BUILTIN_FEEDS[feed].defaultEndpoint,
    );
    targets.push({
      feed,
      origin: endpoint.origin,
      path: endpoint.pathname.endsWith('/') ? endpoint.pathname : `${endpoint.pathname}/`,
      keyHeader: BUILTIN_FEEDS[feed].keyHeader,
    });
  }
  return targets;
}

/**
 * The key of `feed` as the client's own lookups get it: from the vault when it holds one (a locked vault throws
 * VaultLockedError, answered as the API's vault-locked problem), else from `apiKeys` (client.config shows keys
 * redacted: the proxy is the one place that needs them, to add them server-side).
 */
function keyOf(client: ThreatClient, feed: string): string | undefined {
  if (client.vault?.has(feed)) return client.vault.get(feed);
  const entry = configWithSecrets(client).apiKeys[feed];
  return typeof entry === 'string' ? entry : entry?.key;
}

function refused(detail: string, status = 403): ProblemError {
  return new ProblemError({ type: PROBLEM_TARGET_REFUSED, title: 'Proxy target refused', status, detail });
}

function feedFailed(detail: string): ProblemError {
  return new ProblemError({ type: PROBLEM_FEED_FAILED, title: 'Feed unavailable', status: 502, detail });
}

/** The target of a proxy request, checked: which configured feed it reaches, and the URL to ask. */
function checkTarget(raw: string, targets: readonly ProxyTarget[]): { target: ProxyTarget; url: URL } {
  if (raw.length > MAX_TARGET_LENGTH) refusedThrow(`the feed URL is longer than ${MAX_TARGET_LENGTH} characters`, 414);
  // Checked on the text as sent, before any parser resolves or drops anything.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u0020\u007f\\]/.test(raw)) {
    refusedThrow('the feed URL holds whitespace, a control character or a backslash', 400);
  }
  if (/%2e|%5c|%00/i.test(raw) || /(?:^|\/)\.\.?(?:\/|\?|#|$)/.test(raw.replace(/^[a-z]+:\/\/[^/]*/i, ''))) {
    refusedThrow('the feed URL holds a dot segment or an encoded dot, backslash or NUL (no path traversal)', 400);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refusedThrow('append the full feed URL after /proxy/ (https://host/path...)', 400);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refusedThrow('only http and https feed URLs', 400);
  if (url.username || url.password) refusedThrow('the feed URL may not carry user information', 400);
  url.hash = '';
  const target = targets.find(
    (t) => url.origin === t.origin && (url.pathname === t.path.slice(0, -1) || url.pathname.startsWith(t.path)),
  );
  if (!target) {
    // The answer names the configured feeds' endpoints (public addresses), never what the page asked to reach.
    const allowed =
      targets.map((t) => `${t.feed} ${t.origin}${t.path}`).join(', ') || 'none (no built-in feed in sources)';
    refusedThrow(`the proxy reaches only the configured feeds' endpoints: ${allowed}`);
  }
  return { target, url };
}

function refusedThrow(detail: string, status = 403): never {
  throw refused(detail, status);
}

/** A POST body as a form: a JSON object of strings, or a form. */
function formBody(body: unknown): string {
  if (body instanceof URLSearchParams) {
    if ([...body.keys()].length > MAX_FORM_FIELDS) {
      throw refused(`a form POSTed through the proxy has at most ${MAX_FORM_FIELDS} fields`, 400);
    }
    return body.toString();
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw refused('a POST through the proxy sends a JSON object of strings, forwarded to the feed as a form', 400);
  }
  const entries = Object.entries(body);
  if (entries.length > MAX_FORM_FIELDS || entries.some(([, value]) => typeof value !== 'string')) {
    throw refused(
      `a POST through the proxy sends a JSON object of at most ${MAX_FORM_FIELDS} string fields, forwarded as a form`,
      400,
    );
  }
  return new URLSearchParams(entries as Array<[string, string]>).toString();
}

/** Reads at most `max` bytes of `body`; undefined when there is more (the rest is cancelled). */
async function readBounded(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** An abort signal for the feed request: the time limit, or the page going away. */
function feedSignal(reply: FastifyReply, timeoutMs: number): AbortSignal {
  const gone = new AbortController();
  // The response (not the request, which closes once its body is read) closes early when the page goes away.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return AbortSignal.any([AbortSignal.timeout(timeoutMs), gone.signal]);
}

/**
 * Registers `GET|POST /proxy/*` on `app` (a mounted API's scope, whose authentication and rate limit apply) for
 * `client`'s feeds. See the file's header.
 */
export function registerFeedProxy(app: FastifyInstance, client: ThreatClient, options: FeedProxyOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
  const marker = `${app.prefix}/proxy/`;

  // A scope of its own, so that a form body is taken by this route only.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, new URLSearchParams(body as string)),
    );
    scope.route({
      method: ['GET', 'POST'],
      url: '/proxy/*',
      config: { acceptsForm: true },
      handler: async (request, reply) => {
        // The target is read from the URL as sent: the router's decoded parameter would turn %2F into a slash.
        if (!request.url.startsWith(marker)) throw refused('append the full feed URL after /proxy/', 400);
        const { target, url } = checkTarget(request.url.slice(marker.length), proxyTargets(client));
        const key = keyOf(client, target.feed);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (key) headers[target.keyHeader] = key;
        let body: string | undefined;
        if (request.method === 'POST') {
          body = formBody(request.body);
          headers['content-type'] = 'application/x-www-form-urlencoded';
        }
        let response: Response;
        try {
          response = await fetch(url, {
            method: request.method,
            headers,
            ...(body === undefined ? {} : { body }),
            redirect: 'manual',
            signal: feedSignal(reply, timeoutMs),
          });
        } catch (error) {
          const timedOut = (error as { name?: string }).name === 'TimeoutError';
          throw feedFailed(
            timedOut
              ? `${target.feed} did not answer within ${timeoutMs} ms`
              : `${target.feed} could not be reached (${(error as { cause?: { code?: string } }).cause?.code ?? 'network error'})`,
          );
        }
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel().catch(() => undefined);
          throw feedFailed(`${target.feed} answered a redirect (${response.status}), which the proxy does not follow`);
        }
        const bytes = await readBounded(response.body, maxResponseBytes);
        if (!bytes) throw feedFailed(`${target.feed} answered more than ${maxResponseBytes} bytes`);
        if (response.status >= 500) throw feedFailed(`${target.feed} answered ${response.status}`);
        for (const [name, value] of response.headers) if (PASSED_HEADERS.test(name)) reply.header(name, value);
        let payload: Uint8Array | string = bytes;
        if (key) {
          const text = new TextDecoder().decode(bytes);
          if (text.includes(key)) payload = text.split(key).join('[redacted]');
        }
        return reply
          .code(response.status)
          .send(
            typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength),
          );
      },
    });
  });
}
