import type { IncomingHttpHeaders } from 'node:http';
import type { DateKeys } from './fixture-dates.js';

/** Identifiers of the emulated feeds (the same ids threatlib's sources use). */
export type EmulatedFeed = 'feed_urls' | 'feed_otx' | 'feed_abuse' | 'feed_cti' | 'feed_scan';

/**
 * What the emulator does for an indicator. The answer behaviours are written in each vendor's documented format;
 * `hang` never answers, `malformed` answers a body that is not JSON, `wrong_shape` answers JSON the vendor would
 * never send.
 */
export type Behaviour =
  | 'malicious'
  | 'suspicious'
  | 'clean'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'server_error'
  | 'hang'
  | 'malformed'
  | 'wrong_shape';

/** A request as the emulator saw it. */
export interface EmulatorRequest {
  method: string;
  /** Path below the vendor prefix, without the query string (`/ip_addresses/1.2.3.4`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  body: string;
}

/** A response the emulator sends. */
export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings as they are. */
  body?: unknown;
}

/** The outcome of routing a request: the indicator it asks about, or the answer the real API gives to a bad one. */
export type Routed = { indicator: string } | { response: EmulatorResponse };

/** One emulated vendor API: how it is addressed, authenticated and how it answers. */
export interface VendorApi {
  feed: EmulatedFeed;
  /** Path prefix the API is served under on the emulator (`/virustotal/api/v3`). */
  prefix: string;
  /** Whether the real API refuses requests without a key. */
  requiresKey: boolean;
  /**
   * When the vendor's answers were recorded, epoch ms: the dates in them are as they were at that moment. The
   * emulator moves every date by the time between this and its own clock, so its evidence is always as fresh as it
   * was then.
   */
  recordedAt: number;
  /** Dates the emulator finds by key rather than by shape (numbers, bare `YYYYMMDD`). */
  dateKeys?: DateKeys;
  /** The API key the request carries, from the header the vendor documents. */
  key(request: EmulatorRequest): string | undefined;
  /**
   * Validates the request as the real API does (method, path, parameters, headers) and extracts the indicator;
   * a request the real API would refuse gets the vendor's own error answer.
   */
  route(request: EmulatorRequest): Routed;
  /**
   * The vendor's answer for a behaviour (every behaviour except `hang` and `malformed`), with its dates as recorded
   * (the emulator moves them). `now` is the emulator's clock, epoch ms, for what the vendor computes from the time of
   * the request (a rate limit's reset time).
   */
  respond(
    behaviour: Exclude<Behaviour, 'hang' | 'malformed'>,
    indicator: string,
    request: EmulatorRequest,
    now: number,
  ): EmulatorResponse;
}
