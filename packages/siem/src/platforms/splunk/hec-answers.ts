// HTTP Event Collector answers: `{"text": ..., "code": n}` with the status codes of "Troubleshoot HTTP Event
// Collector" (https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/troubleshoot-http-event-collector):
// 0 Success (200), 1 Token disabled (403), 2 Token is required (401), 3 Invalid authorization (401), 4 Invalid token
// (403), 5 No data (400), 6 Invalid data format (400), 7 Incorrect index (400), 8 Internal server error (500),
// 9 Server is busy (503), 10 Data channel is missing (400), 11 Invalid data channel (400), 12 Event field is required
// (400), 13 Event field cannot be blank (400), 14 ACK is disabled (400), 15 Error in handling indexed fields (400),
// 16 Query string authorization is not enabled (400); health: 17 HEC is healthy (200), 18 HEC is unhealthy (503).
import { retryAfter } from '@threatlib/core/integration';
import type { SiemError } from '../../connector/siem-error.js';
import type { SiemHttpResponse } from '../../connector/siem-http.js';
import type { PlatformCall } from '../platform.js';

/** HEC's answer body. */
export interface HecAnswer {
  text?: string;
  code?: number;
  ackId?: number;
  'invalid-event-number'?: number;
  [field: string]: unknown;
}

/** HEC codes the connector acts on. */
export const HEC = {
  success: 0,
  noData: 5,
  invalidDataFormat: 6,
  incorrectIndex: 7,
  busy: 9,
  channelMissing: 10,
  eventRequired: 12,
  eventBlank: 13,
  ackDisabled: 14,
  healthy: 17,
} as const;

/** The answer's body as HEC's JSON, or `{}` when it is not (a proxy's page). */
export function readHecAnswer(response: SiemHttpResponse): HecAnswer {
  try {
    const parsed: unknown = JSON.parse(response.body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as HecAnswer) : {};
  } catch {
    return {};
  }
}

/**
 * The error for a HEC answer that is not a success. `events` names the alerts or cases of the request, so that an
 * `invalid-event-number` can say which one HEC refused.
 */
export function hecFailure(
  call: PlatformCall,
  response: SiemHttpResponse,
  answer: HecAnswer,
  context: { index?: string; what?: readonly string[] } = {},
): SiemError {
  const text = typeof answer.text === 'string' && answer.text ? answer.text : snippet(response.body);
  const code = typeof answer.code === 'number' ? answer.code : undefined;
  const details = { statusCode: response.statusCode, ...(code === undefined ? {} : { siemCode: code }) };
  if (response.statusCode === 401 || response.statusCode === 403) {
    return call.errors.authentication(`${text} (HEC code ${code ?? 'none'})`, details);
  }
  const eventNumber = answer['invalid-event-number'];
  const which =
    typeof eventNumber === 'number'
      ? ` at event ${eventNumber}${context.what?.[eventNumber] ? ` (${context.what[eventNumber]})` : ''}`
      : '';
  switch (code) {
    case HEC.incorrectIndex:
      return call.errors.request(
        `HEC: ${text}${which}: the HEC token may not write to index ${context.index ?? '(its default)'}; add it to the token's allowed indexes or change the index option`,
        { ...details, isRetryable: false },
      );
    case HEC.busy:
      return call.errors.request(`HEC: ${text}`, {
        ...details,
        isRetryable: true,
        ...retryAfterOf(response),
      });
    case HEC.ackDisabled:
      return call.errors.request(`HEC: ${text}: the token does not use indexer acknowledgement; set hec.ack: false`, {
        ...details,
        isRetryable: false,
      });
    default:
      break;
  }
  if (response.statusCode === 413) {
    return call.errors.request(`HEC: request too large (HTTP 413): lower batchSize`, {
      ...details,
      isRetryable: false,
    });
  }
  const retryable = response.statusCode === 429 || response.statusCode >= 500;
  return call.errors.request(`HEC answered HTTP ${response.statusCode}: ${text}${which}`, {
    ...details,
    isRetryable: retryable,
    ...(retryable ? retryAfterOf(response) : {}),
  });
}

function retryAfterOf(response: SiemHttpResponse): { retryAfterMs?: number } {
  const ms = retryAfter(response.headers);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/** The start of a body that is not HEC's JSON, for a message. */
export function snippet(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || '(empty answer)';
}
