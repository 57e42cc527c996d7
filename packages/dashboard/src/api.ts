// The page's only way out: the server's own REST API, on the page's origin, with the bearer token the analyst signed
// in with (kept in this tab's session storage, never in a URL or a log).
import type { Problem } from './types.js';

const TOKEN_KEY = 'threatlib.token';

/** The API's base, relative to the page (`/app/` → `/api/v1/`), so the page works behind a proxy that adds a path. */
function apiBase(): string {
  return new URL('../api/v1/', document.baseURI).pathname;
}

/** The signed-in token, or undefined. */
export function token(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

/** Keeps `value` for this tab (gone when the tab closes); undefined signs out. */
export function setToken(value: string | undefined): void {
  if (value === undefined) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, value);
}

/** A refused request: the server's problem document, or what went wrong on the way. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** What a request answered: its status and its JSON body (202 with `queued` when the service worker kept it). */
export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/**
 * Sends `method path` (relative to the API's base) with the token; rejects with an {@link ApiError} when refused.
 * `fresh` asks the server even when the service worker has a cached answer.
 */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { fresh?: boolean } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const current = token();
  if (current) headers.authorization = `Bearer ${current}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${apiBase()}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // Asked of the server itself: the service worker answers no `no-store` request from its cache.
      ...(options.fresh ? { cache: 'no-store' as const } : {}),
    });
  } catch {
    throw new ApiError(0, 'the server cannot be reached (offline?)');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(response.status, `the server answered ${response.status} with something that is not JSON`);
  }
  if (!response.ok) {
    const problem = parsed as Partial<Problem> | undefined;
    throw new ApiError(
      response.status,
      problem?.detail ?? problem?.title ?? `the server answered ${response.status} ${response.statusText}`,
    );
  }
  return { status: response.status, body: parsed as T };
}

/** `GET path`'s body. */
export async function get<T>(path: string): Promise<T> {
  return (await request<T>('GET', path)).body;
}
