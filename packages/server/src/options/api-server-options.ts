// The options of the REST server: what a user gives `new APIServer(options)`, and the values it runs with (each
// default filled in). Their check, with the messages a wrong one gets, is api-server-options-schema.ts.

import type { FastifyPluginAsync } from 'fastify';
import type { AuthFailureLimit } from '../auth/auth-failure-limiter.js';
import type { ServerAuthentication } from '../auth/authenticator.js';
import type { DashboardPwaOptions } from '../dashboard/dashboard-assets.js';
import { DEFAULT_HEALTH_CACHE_MS } from '../health/probe-cache.js';
import { DEFAULT_PAGE_BYTES } from '../http/budgeted-page.js';
import type { ConnectionOptions } from '../http/connection-options.js';
import { DEFAULT_JSON_DEPTH_LIMIT } from '../http/json-body-parser.js';

/** Options of `APIServer`; the timeouts and the connection cap are those of {@link ConnectionOptions}. */
export interface APIServerOptions extends ConnectionOptions {
  /** Port to listen on, 0 to 65535 (default 8080; 0 picks a free one). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1: loopback only until you say otherwise). */
  host?: string;
  /** The server's own authentication; the mounted client's `security.authentication` is honoured too. */
  authentication?: ServerAuthentication;
  /**
   * Per-client-IP limit: at most `max` requests per `windowMs` (default 600 per minute). `windowMs` is a whole number
   * of milliseconds from 1000 to 86 400 000 (a day): a text such as `'15m'` or a number of seconds (`900`) is refused
   * with the milliseconds it stands for.
   */
  rateLimit?: { windowMs?: number; max?: number };
  /**
   * Failed authentications, counted per client address before authentication runs: an address that fails `max`
   * times (default 10) within `windowMs` (default 60 000) gets 429 for every request, valid credentials included, for
   * `blockMs` (default 300 000). Other addresses are not affected.
   */
  authFailureLimit?: AuthFailureLimit;
  /** Largest request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Most indicators in one `POST /threats/batch` (default 1000). */
  batchLimit?: number;
  /**
   * Log each request and its answer (fastify's `incoming request` / `request completed` lines, category `server`).
   * Off by default: a line per request is costly and rarely wanted; errors are logged either way.
   */
  logRequests?: boolean;
  /**
   * Deepest nesting of arrays and objects in a request body (default 32): a deeper body gets 400 before it is
   * parsed. (Alert `metadata` is also capped at 64 KiB as JSON, by core.)
   */
  jsonDepthLimit?: number;
  /**
   * Most bytes in one page of `GET /alerts` (default 1 MiB): a page ends early, with its `nextCursor`, when the next
   * alert would pass it (a page always holds at least one alert).
   */
  alertPageBytes?: number;
  /** How long `GET /health` reuses a probe of the clients, in ms (default 5000; 0 probes on every request). */
  healthCacheMs?: number;
  /**
   * Whether `/health` and `/metrics` need the API's credentials (the first mounted client's, which include the
   * server's bearer tokens). Default false: open, for probes and scrapers on loopback; turn it on when the server
   * listens beyond loopback and the probes can send a token.
   */
  protectProbes?: boolean;
  /**
   * Serve the dashboard at `/app` (default true): the analyst's page (scan, alerts, feeds, campaigns) built into the
   * package, talking to this server's API with the same bearer token. `/` links it when it is served. `{pwa}` sets
   * how its service worker works (the documented `pwa` options; see {@link DashboardPwaOptions}); without it, the page
   * carries the `pwa` configuration of the client mounted at `/api/v1` (or of the first one mounted).
   */
  dashboard?: boolean | { pwa?: DashboardPwaOptions };
  /**
   * Incoming webhooks served on this server's port: a `WebhookManager` of `@threatlib/webhooks` (anything with a
   * fastify `plugin`). Its routes (`POST <server.path>`, default `/webhooks`, and `/webhooks/<eventName>`) are outside
   * the API's authentication, as webhooks carry their own signatures, and bring their own body parser and limits; the
   * per-address rate limit and the connection timeouts apply to them as to every route.
   *
   * @example
   * ```ts
   * new APIServer({ port: 8080, authentication, webhooks: client.integration('webhooks')?.manager });
   * ```
   */
  webhooks?: { readonly plugin: FastifyPluginAsync } | undefined;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_BATCH_LIMIT = 1000;

/** The options an `APIServer` runs with: every default filled in (connection options, webhooks and auth limits apart). */
export type ResolvedAPIServerOptions = Required<
  Omit<APIServerOptions, 'authentication' | 'rateLimit' | 'authFailureLimit' | 'webhooks' | keyof ConnectionOptions>
> & {
  authentication: ServerAuthentication | undefined;
  rateLimit: { windowMs: number; max: number };
};

/** `options` with each default filled in; `options` is already checked (`checkAPIServerOptions`). */
export function resolveAPIServerOptions(options: APIServerOptions): ResolvedAPIServerOptions {
  return {
    port: options.port ?? 8080,
    host: options.host ?? '127.0.0.1',
    authentication: options.authentication,
    rateLimit: { windowMs: options.rateLimit?.windowMs ?? 60_000, max: options.rateLimit?.max ?? 600 },
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    batchLimit: options.batchLimit ?? DEFAULT_BATCH_LIMIT,
    logRequests: options.logRequests ?? false,
    jsonDepthLimit: options.jsonDepthLimit ?? DEFAULT_JSON_DEPTH_LIMIT,
    alertPageBytes: options.alertPageBytes ?? DEFAULT_PAGE_BYTES,
    healthCacheMs: options.healthCacheMs ?? DEFAULT_HEALTH_CACHE_MS,
    protectProbes: options.protectProbes ?? false,
    dashboard: options.dashboard ?? true,
  };
}
