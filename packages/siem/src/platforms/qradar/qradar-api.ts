// Requests to QRadar's REST API: an authorized service token in the `SEC` header, or a user's name and password by
// HTTP basic authentication; the `Version` header on every call; JSON answers.
// - https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_getting_started.html ("Required permissions to
//   access the API", "Version headers", "Endpoint deprecation": a deprecated endpoint's answers carry `Deprecated`)
import type { Logger } from '@threatlib/core';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';
import type { SiemHttp, SiemHttpResponse } from '../../connector/siem-http.js';
import type { PlatformCall } from '../platform.js';
import { qradarFailure } from './qradar-answers.js';
import type { QradarOptions } from './qradar-options.js';

/** One REST call. */
export interface QradarRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below `/api`, path segments already encoded (`/reference_data/sets/threatlib%20alerts`). */
  path: string;
  /** Query parameters, each encoded once. */
  query?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
}

/** The REST API of one QRadar console. */
export class QradarApi {
  readonly #http: SiemHttp;
  readonly #options: ResolvedCommonOptions & QradarOptions;
  readonly #logger: Logger;
  readonly #authorization: Record<string, string>;
  #warnedDeprecated = false;

  constructor(http: SiemHttp, options: ResolvedCommonOptions & QradarOptions, logger: Logger) {
    this.#http = http;
    this.#options = options;
    this.#logger = logger;
    const credentials = options.credentials;
    this.#authorization =
      'token' in credentials
        ? { SEC: credentials.token }
        : {
            Authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
          };
  }

  /** The `Version` header sent. */
  get apiVersion(): string {
    return this.#options.apiVersion;
  }

  /** Sends the request and returns QRadar's answer, whatever its status. */
  async send(call: PlatformCall, request: QradarRequest): Promise<SiemHttpResponse> {
    const query = Object.entries(request.query ?? {})
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('&');
    const response = await this.#http.request(call, {
      method: request.method,
      path: `/api${request.path}${query ? `?${query}` : ''}`,
      headers: {
        ...this.#authorization,
        Version: this.#options.apiVersion,
        Accept: 'application/json',
        ...(request.json === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...request.headers,
      },
      ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
    });
    if (response.headers.deprecated !== undefined && !this.#warnedDeprecated) {
      this.#warnedDeprecated = true;
      this.#logger.warn(
        { platform: 'siem_b', apiVersion: this.#options.apiVersion, path: request.path.split('?')[0] },
        `QRadar marks API version ${this.#options.apiVersion} of this endpoint deprecated; raise apiVersion before the next QRadar upgrade`,
      );
    }
    return response;
  }

  /**
   * Sends the request and parses the JSON answer when its status is one of `ok`; any other answer rejects with the
   * error QRadar's envelope calls for. `what` names the call in messages (`creating reference set "x"`).
   */
  async json<T>(call: PlatformCall, request: QradarRequest, what: string, ok: readonly number[] = [200]): Promise<T> {
    const response = await this.send(call, request);
    if (!ok.includes(response.statusCode)) throw this.failure(call, response, what);
    return parseJson<T>(call, response, what);
  }

  /** The error for an answer that is not a success. */
  failure(call: PlatformCall, response: SiemHttpResponse, what: string) {
    return qradarFailure(call, response, what, this.#options.apiVersion);
  }
}

/** The answer's body as JSON, or a request error saying QRadar's answer could not be read. */
export function parseJson<T>(call: PlatformCall, response: SiemHttpResponse, what: string): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw call.errors.request(`${what}: QRadar answered HTTP ${response.statusCode} with a body that is not JSON`, {
      statusCode: response.statusCode,
      isRetryable: false,
    });
  }
}

/** A path segment (a reference set name) encoded for a URL. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
