// Reading Google's answers: the error envelope every Google API uses, {"error": {"code", "message", "status",
// "details"}}, and Retry-After.
// - https://cloud.google.com/apis/design/errors#http_mapping
// - https://google.aip.dev/193 (ErrorInfo reason, e.g. ACCESS_TOKEN_SCOPE_INSUFFICIENT, IAM_PERMISSION_DENIED)

/** What a Google API said went wrong. */
export interface GoogleFailure {
  /** The canonical status (`PERMISSION_DENIED`), when the answer is Google's envelope. */
  status?: string;
  /** Google's message, or the start of whatever else was answered. */
  message: string;
  /** `ErrorInfo.reason`, when given (`ACCESS_TOKEN_SCOPE_INSUFFICIENT`). */
  reason?: string;
}

/** Reads Google's error envelope out of an answer, or quotes the answer's start. */
export function readGoogleFailure(body: string): GoogleFailure {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown; status?: unknown; details?: unknown } };
    const error = parsed?.error;
    if (typeof error === 'object' && error !== null && typeof error.message === 'string') {
      const details = Array.isArray(error.details) ? (error.details as { reason?: unknown }[]) : [];
      const reason = details.find((d) => typeof d?.reason === 'string')?.reason as string | undefined;
      return {
        message: error.message,
        ...(typeof error.status === 'string' ? { status: error.status } : {}),
        ...(reason === undefined ? {} : { reason }),
      };
    }
  } catch {
    // Not JSON: an answer from something in front of the API (a proxy's HTML page); quoted below.
  }
  return { message: snippet(body) };
}

/** At most 300 characters of an answer, on one line. */
export function snippet(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  if (line === '') return '(empty answer)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `Retry-After` (seconds or an HTTP date) in ms, or undefined. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
