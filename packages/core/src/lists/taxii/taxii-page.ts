import type { HttpClient } from '../../http/http-client.js';
import { checkJsonStructure } from '../../http-server/json-structure.js';
import { parseStixTimestamp } from '../../stix/stix-timestamp.js';

/** The media type TAXII 2.1 resources are sent and asked for as (TAXII 2.1 section 1.6.8). */
const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

/** One page of a collection's objects, as `GET <api root>/collections/<id>/objects/` answered it. */
export interface TaxiiPage {
  readonly objects: readonly unknown[];
  /** The envelope's `more`: whether the server holds more objects for this query. */
  readonly more: boolean;
  /** The envelope's `next`, to ask for the following page with. */
  readonly next?: string;
  /** `X-TAXII-Date-Added-Last`: when the last object of the page was added, when the server said (and validly). */
  readonly dateAddedLast?: string;
}

/** The query of one page: `limit`, and either `added_after` or `next` with the `added_after` the paging began with. */
export interface TaxiiPageQuery {
  readonly limit: number;
  readonly addedAfter?: string;
  readonly next?: string;
}

/** Why a page could not be read, in words that name the server's answer but never a credential. */
class TaxiiPageError extends Error {
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.name = 'TaxiiPageError';
    this.status = status;
  }
}

/** Deepest nesting read in an envelope: STIX objects are shallow, and nothing deeper is walked. */
const MAX_DEPTH = 64;

/**
 * Asks for one page of the collection at `objectsUrl` and checks the answer: a 200 with a TAXII (or JSON) content
 * type holding an envelope (`{objects?, more?, next?}`).
 *
 * @throws {TaxiiPageError} saying what the server answered when it is not such a page (the TAXII error message's
 *   title and description when it sent one).
 * @throws {HttpError} when no answer came (timeout, network failure, a page larger than the client reads).
 */
export async function readTaxiiPage(
  http: HttpClient,
  objectsUrl: URL,
  query: TaxiiPageQuery,
  options: { headers: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
): Promise<TaxiiPage> {
  const url = new URL(objectsUrl);
  url.searchParams.set('limit', String(query.limit));
  if (query.addedAfter !== undefined) url.searchParams.set('added_after', query.addedAfter);
  if (query.next !== undefined) url.searchParams.set('next', query.next);
  const response = await http.request(url, {
    headers: { accept: TAXII_MEDIA_TYPE, ...options.headers },
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const shown = `${objectsUrl.origin}${objectsUrl.pathname}`;
  if (response.status !== 200) {
    throw new TaxiiPageError(
      `${shown} answered ${response.status}${describeRefusal(response.status, response.body)}`,
      response.status,
    );
  }
  const type = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/taxii+json' && type !== 'application/json') {
    throw new TaxiiPageError(
      `${shown} answered with ${type ? `Content-Type ${JSON.stringify(type.slice(0, 80))}` : 'no Content-Type'}, not application/taxii+json: is the URL a TAXII 2.1 API root?`,
      response.status,
    );
  }
  const fault = checkJsonStructure(response.body, MAX_DEPTH);
  if (fault) {
    throw new TaxiiPageError(
      `${shown} answered with JSON ${fault.kind === 'too-deep' ? `nested deeper than ${MAX_DEPTH} levels` : `repeating the key ${JSON.stringify(fault.key.slice(0, 60))} in one object`}`,
    );
  }
  let envelope: unknown;
  try {
    envelope = response.body.trim() === '' ? {} : JSON.parse(response.body);
  } catch {
    throw new TaxiiPageError(`${shown} answered with a body that is not JSON`);
  }
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw new TaxiiPageError(`${shown} answered with JSON that is not a TAXII envelope (an object)`);
  }
  const { objects = [], more = false, next } = envelope as Record<string, unknown>;
  if (!Array.isArray(objects))
    throw new TaxiiPageError(`${shown} answered with an envelope whose objects is not a list`);
  if (typeof more !== 'boolean')
    throw new TaxiiPageError(`${shown} answered with an envelope whose more is not true or false`);
  if (next !== undefined && (typeof next !== 'string' || next.length > 4096)) {
    throw new TaxiiPageError(
      `${shown} answered with an envelope whose next is not a string (of at most 4096 characters)`,
    );
  }
  const last = response.headers['x-taxii-date-added-last'];
  return {
    objects,
    more,
    ...(typeof next === 'string' && next !== '' ? { next } : {}),
    ...(last !== undefined && parseStixTimestamp(last) !== undefined ? { dateAddedLast: last } : {}),
  };
}

/** What a refusal means, with the TAXII error message's title and description when the server sent one. */
function describeRefusal(status: number, body: string): string {
  const meaning: Record<number, string> = {
    401: ' (the credentials in auth were refused, or none were sent)',
    403: ' (these credentials may not read this collection)',
    404: ' (no such API root or collection: check url and collection)',
    406: ' (the server does not serve TAXII 2.1)',
  };
  let said = '';
  try {
    const error = JSON.parse(body) as { title?: unknown; description?: unknown };
    const parts = [error.title, error.description].filter((part): part is string => typeof part === 'string');
    if (parts.length > 0) said = `: ${parts.join(': ').slice(0, 300)}`;
  } catch {
    // Not a TAXII error message: the status says enough.
  }
  return `${meaning[status] ?? ''}${said}`;
}
