// How the Azure SDKs' failures become the connector's errors. Sources:
// - RestError (statusCode, code, response with headers and body): @azure/core-rest-pipeline
//   https://learn.microsoft.com/en-us/javascript/api/@azure/core-rest-pipeline/resterror
// - Identity errors carry Entra ID's answer (`AADSTS<code>: <description>`), and ARM and Log Analytics answer with
//   error bodies: both read by core's `entraRefusal` and `readAzureErrorBody` (`@threatlib/core/integration`), which
//   say where each is documented
// - AggregateLogsUploadError wraps each failed chunk's cause: @azure/monitor-ingestion
import {
  entraRefusal,
  isAzureIdentityError,
  isCertificateFailure,
  NETWORK_FAILURE_WORDS,
  networkFailureCode,
  readAzureErrorBody,
  retryAfter,
} from '@threatlib/core/integration';
import { SiemError } from '../../connector/siem-error.js';
import type { PlatformCall } from '../platform.js';

interface AzureLikeError {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  errors?: Array<{ cause?: unknown }>;
  errorResponse?: { error?: string; errorDescription?: string };
  request?: { url?: string };
  response?: { status?: number; bodyAsText?: string | null; headers?: { get(name: string): string | undefined } };
  cause?: unknown;
  /** The parsed error body, where a REST-level client keeps it. */
  details?: unknown;
}

/**
 * The connector's error for an SDK failure of one attempt. An abort is passed on as it is (the connector knows
 * whether it was its timeout). Never keeps the SDK's error as `cause`: it holds the request, headers and all.
 */
export function sentinelFailure(error: unknown, call: PlatformCall, api: string): unknown {
  if (SiemError.isInstance(error) || call.signal.aborted) return error;
  let e = error as AzureLikeError;
  // One upload is one chunk (the platform keeps batches under the chunk size): its cause is the failure.
  if (e?.name === 'AggregateLogsUploadError' && e.errors?.[0]?.cause) e = e.errors[0].cause as AzureLikeError;
  if (e?.name === 'AbortError') return e;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const status = typeof e?.statusCode === 'number' ? e.statusCode : e?.response?.status;
  // Throttled or failing (Entra ID too answers 429 with an AADSTS code): worth another attempt, whatever it says.
  if (typeof status === 'number' && (status === 429 || status >= 500)) return fromStatus(e, status, message, call);
  const aadsts = entraRefusal(message);
  if (aadsts) return call.errors.authentication(aadsts.reason, { siemCode: aadsts.code });
  const network = networkFailureCode(e, message);
  if (network) {
    const certificate = isCertificateFailure(network);
    return call.errors.unreachable(
      certificate
        ? `TLS certificate not trusted (${network}); pass its authority as tls.ca`
        : `${NETWORK_FAILURE_WORDS[network] ?? 'network error'} (${network})`,
      { isRetryable: !certificate, ...addressOf(e) },
    );
  }
  if (typeof status === 'number') return fromStatus(e, status, message, call);
  if (isAzureIdentityError(e)) {
    // Entra ID gave no AADSTS answer (its metadata or token endpoint failed, or was busy): worth another attempt.
    return call.errors.request(`${api}: Entra ID token request failed: ${firstLine(message)}`, { isRetryable: true });
  }
  return call.errors.request(`${api}: ${e?.name ?? 'Error'}: ${firstLine(message)}`, { isRetryable: false });
}

/** The error for an HTTP answer: Azure's error code and message (the innermost inner error's too), Retry-After. */
function fromStatus(e: AzureLikeError, status: number, message: string, call: PlatformCall): unknown {
  const body = readAzureErrorBody(e.response?.bodyAsText, e.details);
  const code = body.code ?? (e.code && e.code !== 'REQUEST_SEND_ERROR' ? e.code : undefined);
  const reason = body.message ?? e.errorResponse?.errorDescription ?? message;
  const header = e.response?.headers?.get('retry-after');
  const wait = header === undefined ? undefined : retryAfter({ 'retry-after': header });
  return call.errors.fromStatus(status, code ? `${code}: ${firstLine(reason)}` : firstLine(reason), {
    ...(code === undefined ? {} : { siemCode: code }),
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  });
}

function addressOf(e: AzureLikeError): { address?: string } {
  try {
    const url = e.request?.url ? new URL(e.request.url) : undefined;
    return url ? { address: `${url.hostname}:${url.port || '443'}` } : {};
  } catch {
    return {};
  }
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/)[0] ?? '').slice(0, 500);
}
