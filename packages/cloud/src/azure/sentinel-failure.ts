// How a failed Sentinel call becomes a CloudError that says which call failed and why. Sources:
// - Entra ID's errors (`AADSTS<code>: <description>`) and Azure's error bodies, read by core's `entraRefusal` and
//   `readAzureErrorBody` (`@threatlib/core/integration`), which say where each is documented
// - RestError (statusCode, code, response with bodyAsText and headers; `REQUEST_SEND_ERROR` when no answer came):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/core-rest-pipeline/resterror
// - The upload API's `errors` list:
//   https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
import {
  CERTIFICATE_FAILURE_WORDS,
  entraRefusal,
  isAzureIdentityError,
  NETWORK_FAILURE_WORDS,
  networkFailureCode,
  readAzureErrorBody,
} from '@threatlib/core/integration';
import { CloudError } from '../errors/cloud-error.js';

/** The calls a {@link CloudError} from here names. */
export type SentinelOperation = 'UploadStixObjects' | 'CreateIndicator' | 'GetWorkspace';

const CALLS: Record<SentinelOperation, string> = {
  UploadStixObjects: 'Sentinel threat-intelligence upload (threat-intelligence-stix-objects:upload)',
  CreateIndicator: 'Sentinel threat-intelligence CreateIndicator (legacy API)',
  GetWorkspace: 'Log Analytics workspace read (for the workspace id)',
};

interface ThrownFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  statusCode?: unknown;
  response?: { status?: number; bodyAsText?: string | null };
  cause?: unknown;
}

/** The {@link CloudError} for an HTTP answer that is not a success. */
export function answerFailure(
  operation: SentinelOperation,
  status: number,
  body: string | null | undefined,
  secrets: readonly string[],
): CloudError {
  const { code, message } = readAzureErrorBody(body);
  const reason = message ? firstLine(message) : body ? firstLine(body) : `HTTP ${status}`;
  const text = `${CALLS[operation]} failed: ${code ? `${code} ` : ''}(HTTP ${status}): ${reason}`;
  return new CloudError('sentinel', operation, scrub(text, secrets), {
    ...(code === undefined ? {} : { serviceCode: code }),
    statusCode: status,
    isRetryable: status === 429 || status >= 500,
  });
}

/**
 * The {@link CloudError} for an error a call threw: Entra ID refusing the token request (its AADSTS reason), no
 * answer (the network's reason), or an SDK's error for an answer. Never keeps the thrown error as `cause`: the SDKs'
 * errors hold the request, headers and all.
 */
export function thrownFailure(operation: SentinelOperation, error: unknown, secrets: readonly string[]): CloudError {
  if (CloudError.isInstance(error)) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as ThrownFields;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  const aadsts = entraRefusal(message);
  if (aadsts || isAzureIdentityError(e)) {
    const reason = aadsts ? aadsts.reason : firstLine(message);
    return new CloudError(
      'entra',
      'GetToken',
      scrub(`${CALLS[operation]} failed: Entra ID refused the token request: ${reason}`, secrets),
      {
        ...(aadsts ? { serviceCode: aadsts.code } : {}),
        // An unknown tenant, application or secret stays wrong; only Entra being busy or unreachable is worth a retry.
        isRetryable: !aadsts && networkFailureCode(e, message) !== undefined,
      },
    );
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : e.response?.status;
  if (typeof status === 'number') return answerFailure(operation, status, e.response?.bodyAsText, secrets);
  const network = networkFailureCode(e, message);
  if (network) {
    const words = NETWORK_FAILURE_WORDS[network] ?? CERTIFICATE_FAILURE_WORDS[network] ?? 'network error';
    const hint = words.startsWith('TLS') ? ' (trust its certificate authority, e.g. NODE_EXTRA_CA_CERTS)' : '';
    return new CloudError(
      'sentinel',
      operation,
      scrub(`${CALLS[operation]} failed: ${words} (${network})${hint}`, secrets),
      {
        serviceCode: network,
        isRetryable: !words.startsWith('TLS'),
      },
    );
  }
  if (e.name === 'AbortError') {
    return new CloudError('sentinel', operation, `${CALLS[operation]} failed: aborted (${firstLine(message)})`, {
      isRetryable: true,
    });
  }
  return new CloudError(
    'sentinel',
    operation,
    scrub(
      `${CALLS[operation]} failed: ${typeof e.name === 'string' ? e.name : 'Error'}: ${firstLine(message)}`,
      secrets,
    ),
    { isRetryable: false },
  );
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/)[0] ?? '').slice(0, 500);
}

/** `text` with every secret of `secrets` (a client secret, a token) replaced. */
function scrub(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) if (secret.length >= 4) scrubbed = scrubbed.split(secret).join('[REDACTED]');
  return scrubbed;
}
