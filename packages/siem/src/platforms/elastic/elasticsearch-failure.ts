// Failures of the Elasticsearch client as the connector's errors. The client (@elastic/transport) throws:
// ResponseError (an answer that is not a success: `meta.statusCode`, `body.error.{type, reason}`, headers),
// ConnectionError (no connection; undici's message, such as `connect ECONNREFUSED 127.0.0.1:9200`), TimeoutError,
// RequestAbortedError (our signal), ProductNotSupportedError (the server is not Elasticsearch), DeserializationError.
// https://www.elastic.co/docs/reference/elasticsearch/clients/javascript/api-reference (errors)
// Error bodies: {"error": {"root_cause": [...], "type": ..., "reason": ...}, "status": n}
// https://www.elastic.co/docs/reference/elasticsearch/rest-apis/api-conventions (common options, error responses)
import { NETWORK_FAILURE_WORDS, retryAfter } from '@threatlib/core/integration';
import type { SiemError } from '../../connector/siem-error.js';
import type { PlatformCall } from '../platform.js';

interface ErrorBody {
  error?: string | { type?: string; reason?: string | null; root_cause?: { type?: string; reason?: string }[] };
  status?: number;
}

/** The error name and fields of the client's errors this file reads (duck-typed: one copy of the client or another). */
interface ClientError {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: unknown; headers?: Record<string, string | string[] | undefined> | null };
}

const CERTIFICATE_FAILURE =
  /DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|self[- ]signed certificate|unable to verify the first certificate|Hostname\/IP does not match certificate's altnames/i;

/** Elasticsearch's reason in an error body: `type: reason`, or the body's text when it is not ES's JSON. */
export function elasticsearchReason(body: unknown, status: number | undefined): { reason: string; type?: string } {
  const parsed = typeof body === 'string' ? tryJson(body) : body;
  if (typeof parsed === 'object' && parsed !== null) {
    const error = (parsed as ErrorBody).error;
    if (typeof error === 'string' && error) return { reason: error };
    if (typeof error === 'object' && error !== null) {
      const type = error.type ?? error.root_cause?.[0]?.type;
      const reason = error.reason ?? error.root_cause?.[0]?.reason;
      if (reason) return { reason: String(reason), ...(type ? { type } : {}) };
      if (type) return { reason: type, type };
    }
  }
  if (typeof body === 'string' && body.trim()) {
    const text = body.replace(/\s+/g, ' ').trim();
    return { reason: text.length > 200 ? `${text.slice(0, 200)}…` : text };
  }
  return { reason: status === undefined ? 'no answer' : `HTTP ${status}` };
}

/**
 * The connector's error for a failure of the Elasticsearch client: 401/403 → authentication (Elasticsearch's own
 * reason, such as `unable to authenticate user [svc] for REST request [/_bulk]`), no connection → unreachable, other
 * answers → request errors (retryable for 408, 429 and 5xx, with `Retry-After`), anything else → a request error
 * naming it. `what` says what was being done (`bulk request to threatlib-alerts`).
 */
export function elasticsearchFailure(call: PlatformCall, error: unknown, what: string): SiemError {
  const failure = (error ?? {}) as ClientError;
  const name = failure.name ?? '';
  if (name === 'ResponseError' && failure.meta) {
    const status = failure.meta.statusCode ?? 0;
    const { reason, type } = elasticsearchReason(failure.meta.body, status);
    const headers = flatHeaders(failure.meta.headers);
    if (status === 401 || status === 403) {
      return call.errors.fromStatus(status, `Elasticsearch: ${reason}`, type === undefined ? {} : { siemCode: type });
    }
    const wait = retryAfter(headers);
    return call.errors.fromStatus(status, `${what}: ${type && !reason.startsWith(type) ? `${type}: ` : ''}${reason}`, {
      ...(type === undefined ? {} : { siemCode: type }),
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }
  const message = failure.message ?? String(error);
  if (name === 'ConnectionError') {
    return call.errors.unreachable(networkReason(message), {
      cause: error,
      isRetryable: !CERTIFICATE_FAILURE.test(message),
    });
  }
  if (name === 'NoLivingConnectionsError') {
    return call.errors.unreachable('no Elasticsearch node is alive', { cause: error, isRetryable: true });
  }
  if (name === 'TimeoutError') {
    return call.errors.request(`${what}: no answer in time`, { isRetryable: true });
  }
  if (name === 'ProductNotSupportedError') {
    return call.errors.request(
      `${what}: the server did not identify itself as Elasticsearch (no X-Elastic-Product header): check host and port`,
      { isRetryable: false },
    );
  }
  if (name === 'DeserializationError') {
    return call.errors.request(`${what}: the answer is not JSON`, { isRetryable: false });
  }
  return call.errors.request(`${what}: ${name ? `${name}: ` : ''}${message}`, { isRetryable: false });
}

/** The network failure of a connection error in a few words, with its code (`connection refused (ECONNREFUSED)`). */
function networkReason(message: string): string {
  if (CERTIFICATE_FAILURE.test(message)) {
    const code = /[A-Z_]{8,}/.exec(message)?.[0];
    return `TLS certificate not trusted${code ? ` (${code})` : ''}; pass its authority as tls.ca`;
  }
  if (/wrong version number|EPROTO|packet length too long/i.test(message)) {
    return 'TLS handshake failed (is Elasticsearch speaking HTTPS on this port?)';
  }
  const code = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/.exec(message)?.[1];
  if (code !== undefined) return `${NETWORK_FAILURE_WORDS[code] ?? 'network error'} (${code})`;
  if (/other side closed|socket hang up/i.test(message)) return 'connection closed by the server';
  // Only the first clause: the client appends local and remote addresses, which say nothing more.
  return message.split(' - Local:')[0] ?? message;
}

function flatHeaders(
  headers: Record<string, string | string[] | undefined> | null | undefined,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
