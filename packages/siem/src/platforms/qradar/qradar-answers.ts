// QRadar's REST error envelope and what each answer means for the connector. Every failure comes as
// {"http_response": {"code", "message"}, "code", "description", "details", "message"}: `code` is unique per endpoint
// (1002 the resource does not exist, 1004 the name is in use, 1005 a parameter is not valid, 2000 invalid AQL, 1010
// Ariel unavailable, 1020 a server error), `message` the specific reason.
// - https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_errors.html
// - 401 (code 18, "No SEC header present in request...") and 403 (code 26, "User has insufficient capabilities to
//   access this endpoint resource"): as QRadar sends them; e.g. the error handler of Cortex XSOAR's QRadar v3
//   integration (demisto/content, Packs/QRadar/Integrations/QRadar_v3/QRadar_v3.py) reads the same texts.
// - Removed endpoints answer 410, removed API versions 422:
//   https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_getting_started.html
import { retryAfter } from '@threatlib/core/integration';
import type { SiemError } from '../../connector/siem-error.js';
import type { SiemHttpResponse } from '../../connector/siem-http.js';
import type { PlatformCall } from '../platform.js';

/** QRadar's error envelope, as far as it was there. */
export interface QradarErrorBody {
  /** The endpoint's unique code (1002, 1005...). */
  code?: number;
  /** The specific reason (`test_set does not exist`). */
  message?: string;
  /** What the code means (`The reference set does not exist.`). */
  description?: string;
  http_response?: { code?: number; message?: string };
}

/** QRadar's unique codes the connector acts on. */
export const QRADAR_CODE = {
  notFound: 1002,
  resultsNotReady: 1003,
  nameInUse: 1004,
  invalidParameter: 1005,
  arielUnavailable: 1010,
  invalidAql: 2000,
} as const;

/** The answer's error envelope, or `{}` when the body is not one (a proxy's page). */
export function readQradarError(response: SiemHttpResponse): QradarErrorBody {
  try {
    const parsed: unknown = JSON.parse(response.body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const body = parsed as Record<string, unknown>;
    const http = body.http_response as Record<string, unknown> | undefined;
    return {
      ...(typeof body.code === 'number' ? { code: body.code } : {}),
      ...(typeof body.message === 'string' && body.message ? { message: body.message } : {}),
      ...(typeof body.description === 'string' && body.description ? { description: body.description } : {}),
      ...(http && typeof http === 'object'
        ? {
            http_response: {
              ...(typeof http.code === 'number' ? { code: http.code } : {}),
              ...(typeof http.message === 'string' ? { message: http.message } : {}),
            },
          }
        : {}),
    };
  } catch {
    return {};
  }
}

/** The reason in an envelope: its message, and its description when that adds something. */
function qradarReason(error: QradarErrorBody, response: SiemHttpResponse): string {
  const message = error.message?.trim();
  const description = error.description?.trim();
  const parts = [message, description && description !== message ? description : undefined].filter(Boolean);
  const text = parts.length > 0 ? parts.join(' — ') : (error.http_response?.message ?? snippet(response.body));
  return error.code === undefined ? text : `${text} (QRadar code ${error.code})`;
}

/**
 * The error for an answer that is not a success. `what` says what the call was doing (`adding indicators to
 * reference set "x"`), for the message; `apiVersion` is the Version header sent.
 */
export function qradarFailure(
  call: PlatformCall,
  response: SiemHttpResponse,
  what: string,
  apiVersion: string,
): SiemError {
  const error = readQradarError(response);
  const reason = qradarReason(error, response);
  const status = response.statusCode;
  const details = { statusCode: status, ...(error.code === undefined ? {} : { siemCode: error.code }) };
  if (status === 401) return call.errors.authentication(reason, details);
  if (status === 403) {
    return call.errors.authentication(
      `the credentials may not call this endpoint (${what}): ${reason}; give the authorized service a security profile and user role that allow it`,
      details,
    );
  }
  if (status === 410) {
    return call.errors.request(
      `${what}: QRadar removed this endpoint (HTTP 410: ${reason}); check apiVersion ${apiVersion} against the versions this QRadar supports`,
      { ...details, isRetryable: false },
    );
  }
  if (status === 422 && /version/i.test(reason) && !/query/i.test(reason)) {
    return call.errors.request(
      `${what}: QRadar refused API version ${apiVersion} (HTTP 422: ${reason}); set apiVersion to one it supports`,
      { ...details, isRetryable: false },
    );
  }
  if (status === 406) {
    return call.errors.request(`${what}: HTTP 406: ${reason}`, { ...details, isRetryable: false });
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  const wait = retryable ? retryAfter(response.headers) : undefined;
  return call.errors.request(`${what}: HTTP ${status}: ${reason}`, {
    ...details,
    isRetryable: retryable,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  });
}

/** The start of a body that is not QRadar's JSON, for a message. */
function snippet(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || '(empty answer)';
}
