// QRadar's REST envelope: the API versions the emulated release serves, the error envelope with its documented
// HTTP messages, and the checks every request passes first (authentication, the Version header, the Accept header).
// Sources are listed in qradar.ts.
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';

/** The API versions the emulated release serves. */
const LATEST_VERSION = 22.0;
const OLDEST_SUPPORTED = 20.0;
const OLDEST_DEPRECATED = 19.0;

const HTTP_MESSAGES: Record<number, string> = {
  400: 'Invalid syntax for this request was provided.',
  401: 'You are unauthorized to access the requested resource. Please log in.',
  403: 'Your account is not authorized to access the requested resource.',
  404: 'We could not find the resource you requested. Please refer to the documentation for the list of resources.',
  405: 'This method type is not currently supported.',
  406: 'Acceptance header is invalid for this endpoint resource.',
  409: 'The request could not be completed due to a conflict with the current state of the resource.',
  410: 'The requested resource is no longer available and has been permanently removed.',
  415: 'The requested resource does not support the media type provided.',
  422: 'The request was well-formed but was unable to be followed due to semantic errors.',
  500: 'Unexpected internal server error.',
  503: 'The server is currently unavailable.',
};

/** QRadar's error envelope with its documented status. */
export function qradarError(
  status: number,
  code: number,
  message: string,
  description = '',
  headers?: Record<string, string>,
): EmulatorResponse {
  return {
    status,
    ...(headers ? { headers } : {}),
    body: {
      http_response: { code: status, message: HTTP_MESSAGES[status] ?? '' },
      code,
      description,
      details: {},
      message,
    },
  };
}

/** The endpoint-does-not-exist answer. */
export function notFound(): EmulatorResponse {
  return qradarError(404, 1002, 'The requested endpoint does not exist', 'The resource does not exist.');
}

/** The SEC token or basic credentials, checked first; the 401 answer when they are missing or refused. */
export function authenticate(
  request: EmulatorRequest,
  tokens: ReadonlySet<string>,
  users: Record<string, string>,
): EmulatorResponse | undefined {
  const sec = request.headers.sec;
  const authorization = request.headers.authorization;
  if (typeof sec === 'string' && sec !== '') {
    return tokens.has(sec)
      ? undefined
      : qradarError(401, 18, 'Invalid authorization token: the SEC token is not an authorized service token');
  }
  if (typeof authorization === 'string' && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon === -1 ? decoded : decoded.slice(0, colon);
    const password = colon === -1 ? '' : decoded.slice(colon + 1);
    return Object.hasOwn(users, user) && users[user] === password
      ? undefined
      : qradarError(401, 18, 'Invalid credentials: the user name or password is incorrect');
  }
  return qradarError(
    401,
    18,
    'No SEC header present in request. Please provide it via "SEC: token". You may also use BASIC authentication parameters if this host supports it. e.g. "Authorization: Basic base64Encoding"',
  );
}

/** The Version header: absent means the latest; a version older than the release keeps is refused. */
export function checkVersion(request: EmulatorRequest): { headers: Record<string, string> } | EmulatorResponse {
  const header = request.headers.version;
  if (header === undefined) return { headers: {} };
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!/^\d+(\.\d+)?$/.test(text.trim())) {
    return qradarError(422, 1005, `Invalid version header value "${text}": expected a version such as 22.0`);
  }
  const version = Number(text);
  if (version < OLDEST_DEPRECATED) {
    return qradarError(
      422,
      1005,
      `Version ${text} is no longer supported. Supported versions: ${OLDEST_SUPPORTED.toFixed(1)} to ${LATEST_VERSION.toFixed(1)}`,
    );
  }
  return { headers: version < OLDEST_SUPPORTED ? { deprecated: 'true' } : {} };
}

/** The Accept header: JSON (or a wildcard) or absent; anything else is 406. */
export function checkAccept(request: EmulatorRequest): EmulatorResponse | undefined {
  const accept = request.headers.accept;
  if (accept === undefined) return undefined;
  const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
  if (types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) return undefined;
  return qradarError(
    406,
    1008,
    `None of the accepted types (${accept}) can be produced; this endpoint produces application/json`,
  );
}
