// Microsoft Sentinel's threat-intelligence upload API, the current one. Source for all of it:
// https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
// - POST {endpoint}/workspaces/{workspaceId}/threat-intelligence-stix-objects:upload?api-version=2024-02-01-preview
//   with `{sourcesystem, stixobjects: [...]}` and a bearer token for https://management.azure.com/.
// - At most 100 objects per request and 100 requests per minute per user; over the rate, 429 with
//   `Try again in <n> seconds`.
// - 200 when one or more objects were published: empty when all were, else `{errors: [{recordIndex, errorMessages}]}`
//   naming the refused ones (recordIndex from 0).
import type { Logger } from '@threatlib/core';
import type { Clock, FeedScheduler } from '@threatlib/core/integration';
import { CloudError } from '../errors/cloud-error.js';
import { answerFailure, thrownFailure } from './sentinel-failure.js';
import type { StixIndicatorObject } from './sentinel-indicator.js';
import { UPLOAD_API_VERSION } from './sentinel-options.js';
import type { RestAnswer, SentinelRest } from './sentinel-rest.js';
import { throttleWaitMs } from './throttle-wait.js';

/** STIX objects per request, the API's limit. */
export const MAX_OBJECTS_PER_UPLOAD = 100;

/** The scheduler lane of the upload API: its per-minute quota, and the pauses its 429s ask for. */
export const UPLOAD_LANE = 'sentinel:upload';

/** What became of one object of an upload. */
export type UploadOutcome = { ok: true } | { ok: false; error: CloudError };

/** What the upload API needs from the integration. */
export interface StixUploadSettings {
  rest: SentinelRest;
  scheduler: FeedScheduler;
  clock: Clock;
  logger: Logger;
  endpoint: string;
  sourceSystem: string;
  /** The workspace GUID (read from ARM the first time when not configured). */
  workspaceId(): Promise<string>;
  maxThrottleRetries: number;
  secrets: readonly string[];
}

/** Uploads STIX objects, one request per 100, each request through the scheduler's quota for the API. */
export class StixUploadApi {
  readonly #s: StixUploadSettings;

  constructor(settings: StixUploadSettings) {
    this.#s = settings;
  }

  /**
   * Uploads at most {@link MAX_OBJECTS_PER_UPLOAD} objects in one request, waiting out 429s, and says what became of
   * each: published, refused by Sentinel (its messages for that record), or failed with the request.
   */
  async upload(objects: readonly StixIndicatorObject[], signal?: AbortSignal): Promise<UploadOutcome[]> {
    if (objects.length > MAX_OBJECTS_PER_UPLOAD) {
      throw new RangeError(`at most ${MAX_OBJECTS_PER_UPLOAD} STIX objects go in one upload, not ${objects.length}`);
    }
    let answer: RestAnswer;
    try {
      answer = await this.#send(objects, signal);
    } catch (error) {
      const failure = thrownFailure('UploadStixObjects', error, this.#s.secrets);
      return objects.map(() => ({ ok: false, error: failure }));
    }
    return this.#outcomes(objects, answer);
  }

  async #send(objects: readonly StixIndicatorObject[], signal: AbortSignal | undefined): Promise<RestAnswer> {
    const { rest, scheduler, clock, logger } = this.#s;
    const workspaceId = await this.#s.workspaceId();
    const url = `${this.#s.endpoint}/workspaces/${encodeURIComponent(workspaceId)}/threat-intelligence-stix-objects:upload?api-version=${UPLOAD_API_VERSION}`;
    const body = { sourcesystem: this.#s.sourceSystem, stixobjects: objects };
    for (let throttled = 0; ; throttled++) {
      const answer = await scheduler.schedule(UPLOAD_LANE, () => rest.send('POST', url, body, signal), { signal });
      if (answer.status !== 429 || throttled >= this.#s.maxThrottleRetries) return answer;
      const waitMs = throttleWaitMs(answer.header('retry-after'), answer.body, clock.now());
      logger.warn(
        { api: 'sentinel-upload', waitMs, objects: objects.length, attempt: throttled + 1 },
        `Sentinel's upload API is throttling: waiting ${waitMs} ms as it asked`,
      );
      scheduler.pause(UPLOAD_LANE, clock.now() + waitMs);
    }
  }

  #outcomes(objects: readonly StixIndicatorObject[], answer: RestAnswer): UploadOutcome[] {
    const refused = answer.status === 200 || answer.status === 400 ? recordErrors(answer.body) : undefined;
    if (answer.status === 200 || (answer.status === 400 && refused !== undefined && refused.size > 0)) {
      // A 400 with an errors list: every record was refused (those it does not list with the request).
      const whole =
        answer.status === 400 ? answerFailure('UploadStixObjects', 400, answer.body, this.#s.secrets) : undefined;
      return objects.map((object, index) => {
        const messages = refused?.get(index);
        if (messages) {
          return {
            ok: false,
            error: new CloudError(
              'sentinel',
              'UploadStixObjects',
              `Sentinel refused STIX object ${object.id} (record ${index} of the upload): ${messages.join(' ')}`,
              { statusCode: answer.status, serviceCode: 'InvalidStixObject', isRetryable: false },
            ),
          };
        }
        return whole ? { ok: false, error: whole } : { ok: true };
      });
    }
    const failure = answerFailure('UploadStixObjects', answer.status, answer.body, this.#s.secrets);
    return objects.map(() => ({ ok: false, error: failure }));
  }
}

/** The `errors` list of an answer, by record index; undefined when the body has none. */
function recordErrors(body: string | undefined): Map<number, string[]> | undefined {
  if (!body?.trim()) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const byIndex = new Map<number, string[]>();
  for (const entry of errors) {
    const index = (entry as { recordIndex?: unknown } | null)?.recordIndex;
    if (typeof index !== 'number') continue;
    const raw = (entry as { errorMessages?: unknown }).errorMessages;
    const messages = Array.isArray(raw) ? raw.filter((m): m is string => typeof m === 'string') : [];
    byIndex.set(index, [...(byIndex.get(index) ?? []), ...(messages.length > 0 ? messages : ['(no reason given)'])]);
  }
  return byIndex;
}
