// Microsoft Sentinel's threat-intelligence upload API (STIX objects), as the real one answers. Source, for all of it:
// https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
// - POST https://api.ti.sentinel.azure.com/workspaces/{workspaceId}/threat-intelligence-stix-objects:upload
//   ?api-version=2024-02-01-preview, `Authorization: Bearer` with a token for ARM's audience
//   (https://management.azure.com/ or https://management.core.windows.net/, with or without the slash).
// - Body `{sourcesystem (required; "Microsoft Sentinel" is restricted), stixobjects (required, array)}`.
// - 200 when one or more objects were validated and published: an empty body when all were, else
//   `{errors: [{recordIndex, errorMessages}]}` for the refused ones; 400 bad format; 401; 404 unknown workspace;
//   429 over the rate.
// - Limits per user: 100 objects per request, 100 requests per minute; the 429's body is
//   `{"statusCode": 429, "message": "Rate limit is exceeded. Try again in <n> seconds."}`.
// Not documented, so modelled on the documented 429 (Azure API Management's gateway shape, which also sends
// Retry-After): the other error bodies, `{statusCode, message}`; a request whose every object is refused, 400 with
// the `errors` list.
import type { CloudRequest, CloudResponse } from './cloud-service.js';
import { stixObjectErrors } from './sentinel-stix.js';
import { asEmulatorRequest, type SentinelTiState, scriptedThrottle } from './sentinel-workspace.js';

const PATH = /^\/workspaces\/([^/]+)\/threat-intelligence-stix-objects:upload$/;

/** The api-versions of the upload API. */
export const UPLOAD_API_VERSIONS = ['2024-02-01-preview'];

/** The token audiences the upload API accepts. */
const AUDIENCES = ['https://management.azure.com', 'https://management.core.windows.net'];

const MINUTE_MS = 60_000;

/** Whether the request is for the upload API. */
export function isUpload(request: CloudRequest): boolean {
  return PATH.test(request.path);
}

/** Handles one upload request: authentication, the address, the rate, the body, then each object. */
export function handleUpload(state: SentinelTiState, request: CloudRequest): CloudResponse {
  const now = state.now();
  const token = state.authority.check(asEmulatorRequest(request, now), AUDIENCES);
  if (!token.ok) {
    const message =
      token.problem === 'audience'
        ? `Invalid token audience '${token.detail}'. The API accepts tokens for 'https://management.azure.com/' or 'https://management.core.windows.net/'.`
        : token.problem === 'missing'
          ? 'Access denied due to missing token. Make sure to include an Authorization header with a bearer token.'
          : `Unauthorized. ${token.detail}`;
    return answer(401, message, { 'www-authenticate': 'Bearer error="invalid_token"' });
  }
  if (request.method !== 'POST') return answer(405, `The method '${request.method}' is not allowed.`);
  const apiVersion = request.query.get('api-version');
  if (!apiVersion || !UPLOAD_API_VERSIONS.includes(apiVersion)) {
    return answer(
      400,
      `The api-version '${apiVersion ?? ''}' is invalid. The supported versions are '${UPLOAD_API_VERSIONS.join(',')}'.`,
    );
  }
  const workspaceId = decodeURIComponent(PATH.exec(request.path)?.[1] ?? '');
  if (workspaceId.toLowerCase() !== state.config.workspaceId.toLowerCase()) {
    return answer(404, `Workspace '${workspaceId}' was not found.`);
  }

  const throttled = scriptedThrottle(state, 'upload', rateLimited) ?? overTheRate(state, token.claims.oid, now);
  if (throttled) return throttled;

  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) {
    return answer(400, `The content type '${type || '(none)'}' is not supported. Use 'application/json'.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch (error) {
    return answer(400, `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return answer(400, 'The request body must be a JSON object with sourcesystem and stixobjects.');
  }
  const { sourcesystem, stixobjects } = body as { sourcesystem?: unknown; stixobjects?: unknown };
  if (typeof sourcesystem !== 'string' || sourcesystem.trim() === '') {
    return answer(400, "Required property 'sourcesystem' is missing or empty.");
  }
  if (sourcesystem.trim().toLowerCase() === 'microsoft sentinel') {
    return answer(400, "The sourcesystem value 'Microsoft Sentinel' is restricted.");
  }
  if (!Array.isArray(stixobjects)) return answer(400, "Required property 'stixobjects' must be an array.");
  if (stixobjects.length === 0) return answer(400, "The 'stixobjects' array is empty.");
  const max = state.config.maxObjectsPerRequest;
  if (stixobjects.length > max) {
    return answer(400, `The request has ${stixobjects.length} STIX objects; at most ${max} are allowed per request.`);
  }

  const errors: Array<{ recordIndex: number; errorMessages: string[] }> = [];
  stixobjects.forEach((object, recordIndex) => {
    const messages = stixObjectErrors(object);
    if (messages.length > 0) {
      errors.push({ recordIndex, errorMessages: messages });
      return;
    }
    const o = object as Record<string, unknown>;
    const id = String(o.id);
    const existing = state.objects.get(id);
    // A later version (by `modified`) replaces the one held; an older one does not.
    if (!existing || String(existing.object.modified) <= String(o.modified)) {
      state.objects.set(id, { sourcesystem, object: { spec_version: '2.1', ...o }, receivedAt: now });
    }
  });
  state.uploads.push({ sourcesystem, objects: stixobjects.length, errors });
  if (errors.length === stixobjects.length) return { status: 400, body: { errors } };
  return errors.length === 0 ? { status: 200 } : { status: 200, body: { errors } };
}

/** The 429 of a user over 100 requests in the last minute, with the seconds until the oldest leaves the minute. */
function overTheRate(state: SentinelTiState, user: string, now: number): CloudResponse | undefined {
  const times = (state.requestTimes.get(user) ?? []).filter((t) => t > now - MINUTE_MS);
  state.requestTimes.set(user, times);
  if (times.length >= state.config.requestsPerMinute) {
    const seconds = Math.max(1, Math.ceil(((times[0] as number) + MINUTE_MS - now) / 1000));
    return { status: 429, headers: { 'retry-after': String(seconds) }, body: rateLimited(seconds) };
  }
  times.push(now);
  return undefined;
}

function rateLimited(seconds: number): unknown {
  return { statusCode: 429, message: `Rate limit is exceeded. Try again in ${seconds} seconds.` };
}

function answer(status: number, message: string, headers?: Record<string, string>): CloudResponse {
  return { status, ...(headers ? { headers } : {}), body: { statusCode: status, message } };
}
