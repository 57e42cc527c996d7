// The Logs Ingestion API of a data collection endpoint. Sources:
// - Operation `Upload` (POST /dataCollectionRules/{ruleId}/streams/{stream}?api-version=2023-01-01, body a JSON
//   array, `Content-Encoding: gzip` optional, 204 on success, errors as `{"error": {"code", "message"}}` with the
//   `x-ms-error-code` header): azure-rest-api-specs specification/monitor/data-plane/ingestion/stable/2023-01-01/
//   DataCollectionRules.json
// - Audience `https://monitor.azure.com` and the role (Monitoring Metrics Publisher on the rule):
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/logs-ingestion-api-overview
// - 403 `OperationFailed` "The authentication token provided does not have access to ingest data for the data
//   collection rule with immutable Id ...": azure-sdk-for-js sdk/monitor/monitor-ingestion/TROUBLESHOOTING.md
// - A token for another audience is refused as `InvalidAudience` (MicrosoftDocs/azure-docs pull request 103840).
// - Limits: 1 MB per call, compressed or not (413 beyond); columns the stream does not declare are dropped, and a row
//   whose TimeGenerated is not a date-time is dropped with an entry in DCRLogErrors, the call still answering 204:
//   https://learn.microsoft.com/en-us/azure/azure-monitor/fundamentals/service-limits#logs-ingestion-api
import { gunzipSync } from 'node:zlib';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import type { SentinelWorkspace } from './sentinel-workspace.js';

/** The most bytes one call may carry, compressed and uncompressed. */
export const INGESTION_MAX_BYTES = 1_000_000;

const PATH = /^\/dataCollectionRules\/([^/]+)\/streams\/([^/]+)$/;

/** Whether the request is for the ingestion API. */
export function isIngestion(request: EmulatorRequest): boolean {
  return PATH.test(request.path);
}

/** Handles one upload: authentication, then headers, then the body. */
export function handleIngestion(workspace: SentinelWorkspace, request: EmulatorRequest): EmulatorResponse {
  const { config } = workspace;
  const token = workspace.authority.check(request, ['https://monitor.azure.com']);
  if (!token.ok) {
    if (token.problem === 'audience') {
      return failure(401, 'InvalidAudience', `Invalid authorization token audience '${token.detail}'.`);
    }
    if (token.problem === 'missing') {
      return failure(401, 'InvalidAuthenticationToken', 'Authorization header is missing or empty.');
    }
    if (token.problem === 'expired') return failure(401, 'ExpiredAuthenticationToken', token.detail);
    return failure(401, 'InvalidAuthenticationToken', `The access token is invalid. ${token.detail}`);
  }
  if (request.method !== 'POST') {
    return failure(405, 'MethodNotAllowed', `The requested resource does not support http method '${request.method}'.`);
  }
  const [, ruleId = '', stream = ''] = PATH.exec(request.path) ?? [];
  const apiVersion = request.query.get('api-version');
  if (!apiVersion) {
    return failure(400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required.');
  }
  if (apiVersion !== '2023-01-01' && apiVersion !== '2021-11-01-preview') {
    return failure(
      400,
      'InvalidApiVersionParameter',
      `The api-version '${apiVersion}' is invalid. The supported versions are '2023-01-01,2021-11-01-preview'.`,
    );
  }
  if (decodeURIComponent(ruleId) !== config.dataCollectionRuleId) {
    return failure(
      404,
      'DataCollectionRuleNotFound',
      `Data collection rule with immutable Id '${decodeURIComponent(ruleId)}' was not found.`,
    );
  }
  if (config.deny.ingestion) {
    return failure(
      403,
      'OperationFailed',
      `The authentication token provided does not have access to ingest data for the data collection rule with immutable Id '${config.dataCollectionRuleId}'.`,
    );
  }
  if (decodeURIComponent(stream) !== config.streamName) {
    return failure(
      400,
      'InvalidStream',
      `Stream '${decodeURIComponent(stream)}' is not declared in the data collection rule '${config.dataCollectionRuleId}'.`,
    );
  }
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) {
    return failure(
      415,
      'UnsupportedMediaType',
      `Content type '${type || '(none)'}' is not supported; use application/json.`,
    );
  }
  const encoding = String(request.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding !== '' && encoding !== 'gzip') {
    return failure(415, 'UnsupportedContentEncoding', `Content encoding '${encoding}' is not supported; use gzip.`);
  }
  if (request.raw.length > INGESTION_MAX_BYTES) {
    return failure(
      413,
      'ContentLengthLimitExceeded',
      `Maximum request body size of ${INGESTION_MAX_BYTES} bytes exceeded.`,
    );
  }
  let text: Buffer = request.raw;
  if (encoding === 'gzip') {
    try {
      text = gunzipSync(request.raw, { maxOutputLength: INGESTION_MAX_BYTES + 1 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        return failure(
          413,
          'ContentLengthLimitExceeded',
          `Maximum uncompressed size of ${INGESTION_MAX_BYTES} bytes exceeded.`,
        );
      }
      return failure(400, 'InvalidContentEncoding', 'The request body is not valid gzip data.');
    }
    if (text.length > INGESTION_MAX_BYTES) {
      return failure(
        413,
        'ContentLengthLimitExceeded',
        `Maximum uncompressed size of ${INGESTION_MAX_BYTES} bytes exceeded.`,
      );
    }
  }
  let rows: unknown;
  try {
    rows = JSON.parse(text.toString('utf8'));
  } catch {
    return failure(400, 'InvalidPayload', 'The request body is not valid JSON.');
  }
  if (!Array.isArray(rows)) return failure(400, 'InvalidPayload', 'The request body must be a JSON array of objects.');
  const table = workspace.tables.get(config.table);
  if (!table) return failure(500, 'InternalServerError', 'The rule’s output table is missing.');
  for (const row of rows) {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      workspace.dropped.push({ row, reason: 'The record is not a JSON object.' });
      continue;
    }
    const kept: Record<string, unknown> = {};
    let reason: string | undefined;
    for (const column of config.columns) {
      const value = (row as Record<string, unknown>)[column.name];
      if (value === undefined || value === null) continue;
      const problem = typeProblem(value, column.type);
      if (problem) reason ??= `Column '${column.name}': ${problem}`;
      kept[column.name] = value;
    }
    if (typeof kept.TimeGenerated !== 'string') reason ??= "Column 'TimeGenerated' is required.";
    if (reason) workspace.dropped.push({ row, reason });
    else table.rows.push(kept);
  }
  return { status: 204 };
}

function typeProblem(value: unknown, type: string): string | undefined {
  switch (type) {
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? undefined : 'not a datetime';
    case 'string':
      return typeof value === 'string' ? undefined : 'not a string';
    case 'real':
    case 'long':
    case 'int':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `not a ${type}`;
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'not a bool';
    default:
      return undefined;
  }
}

function failure(status: number, code: string, message: string): EmulatorResponse {
  return { status, headers: { 'x-ms-error-code': code }, body: { error: { code, message } } };
}
