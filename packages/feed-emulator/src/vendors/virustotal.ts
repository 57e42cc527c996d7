// Emulation of the VirusTotal API v3 object lookups threatlib makes. What it follows, and where it was confirmed:
// - https://docs.virustotal.com/reference/errors: the `{"error": {"code", "message"}}` body and the table of codes
//   and statuses (AuthenticationRequiredError/WrongCredentialsError 401, ForbiddenError 403, NotFoundError 404,
//   QuotaExceededError 429, TransientError 503, InvalidArgumentError/BadRequestError 400), including the two
//   documented example bodies ("X-Apikey header is missing", `URL "..." not found`).
// - https://docs.virustotal.com/reference/url (URL identifiers): `/urls/{id}` takes the unpadded base64url of the
//   URL (RFC 4648 section 3.2) or the SHA-256 of the canonical URL; the object's own `id` is the SHA-256.
// - https://docs.virustotal.com/reference/domains-1, /ip-object, /url-object, /files, /analyses-object and
//   /popular_threat_classification: the attributes of each object, their types (dates are epoch seconds,
//   engine `result` may be null) and the file-only analysis categories.
// - VirusTotal/vt-py `vt/client.py`: the key travels in the `X-Apikey` header; `url_id()` is
//   `urlsafe_b64encode(url).strip("=")`.
// VirusTotal documents no Retry-After or rate-limit headers; the 429 here sends `Retry-After` so that clients'
// back-off can be tested, which the real API may not do.
// This file holds the routes and the answers of each behaviour; the objects are built in virustotal-objects.ts.
import { isIP } from 'node:net';
import type { Behaviour, EmulatorRequest, EmulatorResponse, Routed, VendorApi } from '../vendor-api.js';
import { type Collection, OBJECT_TYPES, objectBody, objectId } from './virustotal-objects.js';

/**
 * The VirusTotal API v3 as the emulator serves it: `GET /domains/{domain}`, `/ip_addresses/{ip}`, `/urls/{id}` and
 * `/files/{hash}` under `/virustotal/api/v3`, authenticated by the `x-apikey` header.
 */
export const virustotal: VendorApi = {
  feed: 'feed_scan',
  prefix: '/virustotal/api/v3',
  requiresKey: true,
  // The analyses are from 2024-06-01 00:00 UTC, the engines' signatures from the day before.
  recordedAt: Date.parse('2024-06-01T12:00:00Z'),
  dateKeys: { epochSeconds: /_date$/, compactDate: /^engine_update$/ },
  key: (request) => headerValue(request, 'x-apikey'),
  route,
  respond(behaviour, indicator, request) {
    const collection = collectionOf(request.path);
    if (collection === undefined) return notFound('Resource not found.');
    return respondFor(behaviour, indicator, collection, request);
  },
};

function route(request: EmulatorRequest): Routed {
  const segments = request.path.split('/').slice(1);
  const [first, encoded, ...rest] = segments;
  const collection = isCollection(first) ? first : undefined;
  if (collection === undefined || encoded === undefined || encoded === '' || rest.length > 0) {
    // Relationship paths (`/domains/x/resolutions`) exist on the real API but are not asked by threatlib.
    return { response: notFound('Resource not found.') };
  }
  if (request.method !== 'GET') {
    return { response: error(400, 'BadRequestError', `Method ${request.method} is not allowed here`) };
  }
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    return { response: error(400, 'BadRequestError', 'The path is not valid percent-encoding') };
  }
  switch (collection) {
    case 'domains': {
      const domain = id.toLowerCase();
      if (!isDomain(domain)) return { response: error(400, 'InvalidArgumentError', `"${id}" is not a valid domain`) };
      return { indicator: domain };
    }
    case 'ip_addresses': {
      if (isIP(id) === 0) return { response: error(400, 'InvalidArgumentError', `"${id}" is not a valid IP address`) };
      return { indicator: id.toLowerCase() };
    }
    case 'files': {
      if (!/^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i.test(id)) {
        return {
          response: error(400, 'InvalidArgumentError', `"${id}" is not a valid file hash (MD5, SHA-1 or SHA-256)`),
        };
      }
      return { indicator: id.toLowerCase() };
    }
    case 'urls': {
      const url = decodeUrlId(id);
      // The documented answer for an identifier that names no URL, as in the example on the errors page.
      if (url === undefined) return { response: notFound(`URL "${id}" not found`) };
      return { indicator: url };
    }
  }
}

/**
 * The URL an identifier names: the unpadded base64url text of a URL. A SHA-256 identifier cannot be turned back into
 * a URL, so the emulator names it by the hash itself.
 */
function decodeUrlId(id: string): string | undefined {
  if (/^[0-9a-f]{64}$/.test(id)) return id;
  // Padding and the standard alphabet's `+` and `/` are not part of the documented encoding.
  if (!/^[A-Za-z0-9_-]+$/.test(id) || id.length % 4 === 1) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return undefined;
  return /^(?:https?|ftp):\/\/\S+$/i.test(text) ? text : undefined;
}

function respondFor(
  behaviour: Exclude<Behaviour, 'hang' | 'malformed'>,
  indicator: string,
  collection: Collection,
  request: EmulatorRequest,
): EmulatorResponse {
  switch (behaviour) {
    case 'malicious':
    case 'suspicious':
    case 'clean':
      return { status: 200, body: objectBody(behaviour, indicator, collection) };
    case 'not_found':
      return notFound(notFoundMessage(collection, indicator, request));
    case 'unauthorized':
      return virustotal.key(request)
        ? error(401, 'WrongCredentialsError', 'Wrong API key')
        : error(401, 'AuthenticationRequiredError', 'X-Apikey header is missing');
    case 'forbidden':
      return error(403, 'ForbiddenError', 'You are not allowed to perform the requested operation');
    case 'rate_limited':
      return {
        ...error(429, 'QuotaExceededError', 'Quota exceeded'),
        headers: { 'retry-after': '60' },
      };
    case 'server_error':
      return error(503, 'TransientError', 'Transient server error. Retry might work.');
    case 'wrong_shape':
      // The analysis summary as text instead of an object of counts: JSON VirusTotal never sends.
      return {
        status: 200,
        body: {
          data: {
            id: objectId(collection, indicator),
            type: OBJECT_TYPES[collection],
            attributes: { last_analysis_stats: '12/94', reputation: 'bad' },
          },
        },
      };
  }
}

function notFoundMessage(collection: Collection, indicator: string, request: EmulatorRequest): string {
  const asked = decodeURIComponentSafe(request.path.split('/')[2] ?? indicator);
  switch (collection) {
    case 'domains':
      return `Domain "${indicator}" not found`;
    case 'ip_addresses':
      return `IP address "${indicator}" not found`;
    case 'urls':
      return `URL "${asked}" not found`;
    case 'files':
      return `File "${indicator}" not found`;
  }
}

function error(status: number, code: string, message: string): EmulatorResponse {
  return { status, body: { error: { code, message } } };
}

function notFound(message: string): EmulatorResponse {
  return error(404, 'NotFoundError', message);
}

function isCollection(value: string | undefined): value is Collection {
  return value === 'domains' || value === 'ip_addresses' || value === 'urls' || value === 'files';
}

function collectionOf(path: string): Collection | undefined {
  const first = path.split('/')[1];
  return isCollection(first) ? first : undefined;
}

function isDomain(text: string): boolean {
  return (
    text.length <= 253 &&
    /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(text)
  );
}

function headerValue(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
