// The Log Analytics query API. Sources:
// - POST /v1/workspaces/{workspaceId}/query, body {query, timespan}, answer {tables: [{name, columns, rows}]}:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/request-format and .../api/response-format
// - Audience `https://api.loganalytics.io`; a missing token is 401 `AuthorizationRequiredError` ("Valid
//   authentication was not provided"), a token not for the workspace's API 403 `InvalidTokenError` ("The provided
//   authentication is not valid for this resource"), no role 403 `InsufficientAccessError`:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/access-api and azure-sdk-for-net
//   sdk/monitor/Azure.Monitor.Query/TROUBLESHOOTING.md
// - Errors of a query: 400 `BadArgumentError` with an inner `SyntaxError` or `SemanticError`:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/errors
// - timespan: an ISO 8601 duration ending now, or `start/end`, or `start/duration`:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/api/timespan
import { randomUUID } from 'node:crypto';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import { KqlError, runKql } from './sentinel-kql.js';
import type { SentinelWorkspace } from './sentinel-workspace.js';

const PATH = /^\/v1\/workspaces\/([^/]+)\/query$/;

/** Whether the request is for the query API. */
export function isQuery(request: EmulatorRequest): boolean {
  return PATH.test(request.path);
}

/** Runs one query: authentication, then headers, then the body. */
export function handleQuery(workspace: SentinelWorkspace, request: EmulatorRequest): EmulatorResponse {
  const token = workspace.authority.check(request, ['https://api.loganalytics.io', 'https://monitor.azure.com']);
  if (!token.ok) {
    if (token.problem === 'missing')
      return failure(401, 'AuthorizationRequiredError', 'Valid authentication was not provided');
    return failure(403, 'InvalidTokenError', 'The provided authentication is not valid for this resource', {
      code:
        token.problem === 'audience'
          ? 'InvalidAudience'
          : token.problem === 'expired'
            ? 'TokenExpired'
            : 'InvalidToken',
      message:
        token.problem === 'audience' ? `Audience '${token.detail}' is not valid for this resource.` : token.detail,
    });
  }
  if (request.method !== 'POST' && request.method !== 'GET') {
    return failure(405, 'MethodNotAllowedError', `The method '${request.method}' is not allowed.`);
  }
  const [, id = ''] = PATH.exec(request.path) ?? [];
  if (decodeURIComponent(id).toLowerCase() !== workspace.config.workspaceId.toLowerCase()) {
    return failure(404, 'WorkspaceNotFoundError', `Workspace '${decodeURIComponent(id)}' could not be found`);
  }
  if (workspace.config.deny.query) {
    return failure(
      403,
      'InsufficientAccessError',
      'The provided credentials have insufficient access to perform the requested operation',
    );
  }
  let query: unknown;
  let timespan: unknown;
  if (request.method === 'GET') {
    query = request.query.get('query') ?? undefined;
    timespan = request.query.get('timespan') ?? undefined;
  } else {
    const type = String(request.headers['content-type'] ?? '').toLowerCase();
    if (!type.startsWith('application/json')) {
      return failure(415, 'UnsupportedMediaTypeError', `Content type '${type || '(none)'}' is not supported`);
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return failure(400, 'BadArgumentError', 'The request had some invalid properties', {
        code: 'InvalidJsonBody',
        message: 'The request body is not valid JSON',
      });
    }
    query = (body as { query?: unknown } | null)?.query;
    timespan = (body as { timespan?: unknown } | null)?.timespan;
  }
  if (typeof query !== 'string' || query.trim() === '') {
    return failure(400, 'BadArgumentError', 'The request had some invalid properties', {
      code: 'QueryNotFound',
      message: 'The query was not specified',
    });
  }
  const window = timespan === undefined ? undefined : readTimespan(timespan, workspace.now());
  if (window === null) {
    return failure(400, 'BadArgumentError', 'The request had some invalid properties', {
      code: 'InvalidTimespan',
      message: `'${String(timespan)}' is not a valid ISO 8601 timespan`,
    });
  }
  const tables = new Map(
    [...workspace.tables].map(([name, table]) => [
      name,
      {
        columns: table.columns,
        rows: window
          ? table.rows.filter((row) => {
              const time = Date.parse(String(row.TimeGenerated));
              return time >= window.start && time <= window.end;
            })
          : table.rows,
      },
    ]),
  );
  try {
    const result = runKql(query, tables);
    return { status: 200, body: { tables: [{ name: 'PrimaryResult', columns: result.columns, rows: result.rows }] } };
  } catch (error) {
    if (!(error instanceof KqlError)) throw error;
    return failure(400, 'BadArgumentError', 'The request had some invalid properties', {
      code: error.kind === 'syntax' ? 'SyntaxError' : 'SemanticError',
      message: error.kind === 'syntax' ? 'A recognition error occurred in the query.' : 'A semantic error occurred.',
      innererror: { code: error.code, message: error.message },
    });
  }
}

/** `start`/`end` in epoch ms; null when the text is not a timespan. */
function readTimespan(value: unknown, now: number): { start: number; end: number } | null {
  if (typeof value !== 'string') return null;
  const [first = '', second] = value.split('/');
  if (second === undefined) {
    const ms = duration(first);
    return ms === undefined ? null : { start: now - ms, end: now };
  }
  const start = Date.parse(first);
  if (Number.isNaN(start)) return null;
  const end = Date.parse(second);
  if (!Number.isNaN(end)) return end >= start ? { start, end } : null;
  const ms = duration(second);
  return ms === undefined ? null : { start, end: start + ms };
}

function duration(text: string): number | undefined {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, d = '0', h = '0', m = '0', s = '0'] = match;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(m)) * 60_000 + Number(s) * 1000;
}

function failure(
  status: number,
  code: string,
  message: string,
  innererror?: Record<string, unknown>,
): EmulatorResponse {
  return {
    status,
    body: { error: { message, code, correlationId: randomUUID(), ...(innererror ? { innererror } : {}) } },
  };
}
