// What the Azure SDKs' failures say, read the same way by every package that calls Azure (`@threatlib/cloud`'s
// Sentinel publisher, `@threatlib/siem`'s Sentinel connector); each turns it into its own error. Sources:
// - Entra ID's errors, quoted by @azure/identity as `AADSTS<code>: <description>` (7000215 invalid client secret,
//   700016 unknown application, 90002 unknown tenant...):
//   https://learn.microsoft.com/en-us/entra/identity-platform/reference-error-codes and
//   https://aka.ms/azsdk/js/identity/troubleshoot
// - ARM and Log Analytics error bodies (`{"error": {"code", "message", "innererror"}}`):
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/common-deployment-errors,
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/errors
// - The Sentinel upload API's error answers (`{"statusCode", "message"}` for 429):
//   https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api

/** How deep {@link readAzureErrorBody} follows `innererror`: ARM nests a few levels, never dozens. */
const INNER_ERROR_DEPTH = 5;

/**
 * Entra ID's refusal quoted in an error's message: its `AADSTS<code>` and the sentence that follows it, up to the end
 * of the line or the `Trace ID:` Entra ID appends; undefined when the message quotes none.
 *
 * @example
 * ```ts
 * entraRefusal('... AADSTS7000215: Invalid client secret provided. Trace ID: 0a1b...');
 * // { code: 'AADSTS7000215', reason: 'AADSTS7000215: Invalid client secret provided.' }
 * ```
 */
export function entraRefusal(message: string): { code: string; reason: string } | undefined {
  const match = /AADSTS(\d+):[^\r\n]*?(?=\s+Trace ID:|\r|\n|$)/.exec(message);
  return match ? { code: `AADSTS${match[1]}`, reason: match[0].trim() } : undefined;
}

/**
 * Whether `error` is one of @azure/identity's own (`AuthenticationError`, `AuthenticationRequiredError`,
 * `CredentialUnavailableError`): the token request failed, with or without an AADSTS answer.
 */
export function isAzureIdentityError(error: unknown): boolean {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return (
    name === 'AuthenticationError' || name === 'AuthenticationRequiredError' || name === 'CredentialUnavailableError'
  );
}

/**
 * The error code and message of an Azure error body: ARM's and Log Analytics' `{error: {code, message}}` (the
 * innermost `innererror`'s message added when there is one) or the upload API's `{statusCode, message}`. `text` is
 * the body as received (a RestError's `response.bodyAsText`); `parsed`, the body where a client kept it parsed
 * instead (its `details`). Empty when neither is such a body.
 */
export function readAzureErrorBody(
  text: string | null | undefined,
  parsed?: unknown,
): { code?: string; message?: string } {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : parsed;
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  const outer = (body as { error?: unknown }).error;
  const error = (typeof outer === 'object' && outer !== null ? outer : body) as {
    code?: unknown;
    message?: unknown;
    innererror?: unknown;
  };
  let inner = error.innererror as { message?: unknown; innererror?: unknown } | undefined;
  let innermost: string | undefined;
  for (let depth = 0; depth < INNER_ERROR_DEPTH && typeof inner === 'object' && inner !== null; depth++) {
    if (typeof inner.message === 'string') innermost = inner.message;
    inner = inner.innererror as typeof inner;
  }
  const message = typeof error.message === 'string' ? error.message : undefined;
  return {
    ...(typeof error.code === 'string' ? { code: error.code } : {}),
    ...(message || innermost ? { message: [message, innermost].filter(Boolean).join(': ') } : {}),
  };
}
