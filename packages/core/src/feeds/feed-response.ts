import type * as z from 'zod';
import { formatPath } from '../config/format-path.js';
import type { HttpResponse } from '../http/http-client.js';
import type { FeedLookupResult } from './feed.js';
import type { FeedStatus, FeedVerdict } from './feed-result.js';

/** The fields of an answer an adapter sets; the rest default to empty. */
export interface AnswerFields {
  status: 'ok' | 'not_found';
  verdict: FeedVerdict;
  score?: number;
  categories?: string[];
  tags?: string[];
  malwareFamilies?: string[];
  firstSeen?: string | undefined;
  lastSeen?: string | undefined;
  references?: string[];
  evidence?: string[];
  raw?: unknown;
}

/** Builds a feed's answer, with empty lists for what it did not say and the score clamped to 0..1. */
export function answer(fields: AnswerFields): FeedLookupResult {
  const { firstSeen, lastSeen, raw, ...rest } = fields;
  return {
    score: clamp01(rest.score ?? 0),
    categories: unique(rest.categories ?? []),
    tags: unique(rest.tags ?? []),
    malwareFamilies: unique(rest.malwareFamilies ?? []),
    references: unique(rest.references ?? []),
    evidence: rest.evidence ?? [],
    status: rest.status,
    verdict: rest.verdict,
    ...(firstSeen ? { firstSeen: toIso(firstSeen) } : {}),
    ...(lastSeen ? { lastSeen: toIso(lastSeen) } : {}),
    ...(raw === undefined ? {} : { raw }),
  };
}

/** Builds a failure: verdict `unknown`, score 0, and the reason as evidence and error message. */
export function failure(
  status: Exclude<FeedStatus, 'ok' | 'not_found'>,
  message: string,
  detail: { statusCode?: number; retryAfterMs?: number; retryAt?: string; network?: boolean; raw?: unknown } = {},
): FeedLookupResult {
  const { raw, ...error } = detail;
  return {
    status,
    verdict: 'unknown',
    score: 0,
    categories: [],
    tags: [],
    malwareFamilies: [],
    references: [],
    evidence: [message],
    error: { message, ...error },
    ...(raw === undefined ? {} : { raw }),
  };
}

/**
 * The failure a non-success HTTP status means, shared by every adapter so they agree: 401/403 -> `auth_error`,
 * 429 -> `rate_limited` (with the wait the feed asked for), 5xx and anything else unexpected -> `error`.
 * Returns undefined for 2xx. Adapters handle the statuses their API gives a meaning (such as 404 = not found)
 * before calling this.
 */
export function failureFromResponse(
  feed: string,
  response: HttpResponse,
  now = Date.now(),
): FeedLookupResult | undefined {
  const { status } = response;
  if (status >= 200 && status < 300) return undefined;
  if (status === 401 || status === 403) {
    return failure('auth_error', `the API key for ${feed} is invalid or lacks permission (HTTP ${status})`, {
      statusCode: status,
    });
  }
  if (status === 429) {
    const retryAfterMs = retryAfter(response.headers, now);
    return failure(
      'rate_limited',
      `${feed} refused the request: rate limit reached${retryAfterMs === undefined ? '' : `, retry after ${Math.ceil(retryAfterMs / 1000)} s`} (HTTP 429)`,
      { statusCode: status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    );
  }
  if (status >= 500) return failure('error', `${feed} answered HTTP ${status} (server error)`, { statusCode: status });
  return failure('error', `${feed} answered HTTP ${status} unexpectedly`, { statusCode: status });
}

/**
 * How long a feed asked us to wait, from `Retry-After` (seconds or an HTTP date) or, when `X-RateLimit-Remaining` is
 * 0 or absent, `X-RateLimit-Reset` (epoch seconds, or seconds from now when small), in ms; undefined when it did not
 * say.
 */
export function retryAfter(headers: Record<string, string>, now = Date.now()): number | undefined {
  const value = headers['retry-after']?.trim();
  if (value) {
    if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers['x-ratelimit-reset']?.trim();
  // A reset time means "wait" only when nothing is left (or the feed did not say what is left): a 429 that still
  // reports remaining requests is a transient refusal, retried after the backoff, not a reason to stop the feed.
  const remaining = headers['x-ratelimit-remaining']?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset) && (remaining === undefined || Number(remaining) <= 0)) {
    const n = Number(reset);
    // Epoch seconds are large; a small number is a delay in seconds.
    return n > 1_000_000_000 ? Math.max(0, n * 1000 - now) : Math.round(n * 1000);
  }
  return undefined;
}

/** The outcome of {@link parseBody}. */
export type Parsed<T> = { ok: true; data: T } | { ok: false; result: FeedLookupResult };

/**
 * Parses a JSON body and validates it with `schema` (which should tolerate unknown fields). A body that is not
 * JSON, or not of the expected shape, becomes an `error` result saying what was wrong, never an empty answer.
 */
export function parseBody<T>(feed: string, response: HttpResponse, schema: z.ZodType<T>): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch (error) {
    const start = JSON.stringify(response.body.slice(0, 60));
    return {
      ok: false,
      result: failure('error', `${feed} sent a body that is not JSON (${(error as Error).message}; starts ${start})`, {
        statusCode: response.status,
      }),
    };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${formatPath(issue.path) || '(body)'}: ${issue.message}`)
      .join('; ');
    return {
      ok: false,
      result: failure('error', `${feed} sent a response of the wrong shape: ${problems}`, {
        statusCode: response.status,
      }),
    };
  }
  return { ok: true, data: parsed.data };
}

function clamp01(n: number): number {
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}

function unique(items: string[]): string[] {
  // Answers usually carry zero or one of each: no set to build then.
  if (items.length < 2) return items.length === 1 && items[0] !== '' ? [items[0] as string] : [];
  return [...new Set(items.filter((item) => item !== ''))];
}

function toIso(text: string): string {
  // Feeds write dates as ISO 8601, as "YYYY-MM-DD HH:MM:SS UTC", or as epoch seconds; results always hold ISO.
  if (/^\d{9,11}$/.test(text)) return new Date(Number(text) * 1000).toISOString();
  const normalised = text
    .replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?: UTC)?$/, '$1T$2Z')
    // A timestamp without a zone is UTC in every feed we read; Date.parse would take it as local time.
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/, '$1Z');
  const time = Date.parse(normalised);
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}
