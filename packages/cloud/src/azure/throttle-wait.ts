// How long a 429 asks to wait. Sources:
// - Retry-After (seconds or an HTTP date), which Azure Resource Manager and Azure's API gateway send:
//   https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/request-limits-and-throttling
// - The upload API's 429 body, `Rate limit is exceeded. Try again in <number of seconds> seconds.`:
//   https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
import { retryAfter } from '@threatlib/core/integration';

/** When neither the header nor the body says: the upload API's window is a minute. */
const DEFAULT_WAIT_MS = 60_000;

/** Ms to wait after a 429: its Retry-After, else the seconds its message names, else a minute. */
export function throttleWaitMs(retryAfterHeader: string | undefined, body: string | undefined, now: number): number {
  const fromHeader = retryAfterHeader === undefined ? undefined : retryAfter({ 'retry-after': retryAfterHeader }, now);
  if (fromHeader !== undefined) return fromHeader;
  const seconds = /try again in (\d+(?:\.\d+)?) seconds?/i.exec(body ?? '')?.[1];
  return seconds === undefined ? DEFAULT_WAIT_MS : Math.round(Number(seconds) * 1000);
}
