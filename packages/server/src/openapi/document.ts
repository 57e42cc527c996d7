import { SEVERITIES, SeveritySchema } from '@threatlib/core';
import { z } from 'zod';
import * as S from '../schemas.js';

type JsonSchema = Record<string, unknown>;

const PROBLEM_JSON = 'application/problem+json';

function components(): Record<string, JsonSchema> {
  const named = [
    S.ScanRequest,
    S.BatchRequest,
    S.CorrelateRequest,
    S.AlertsQuery,
    S.AlertCreate,
    S.FeedResult,
    S.ScanResponse,
    S.CorrelationResponse,
    S.Problem,
    S.BatchResponse,
    S.FeedStatusResponse,
    S.QuotasResponse,
    S.Alert,
    S.AlertPage,
    S.HealthResponse,
    S.JsonValue,
    S.StixBundleRequest,
    S.CampaignList,
  ];
  const registry = z.registry<{ id: string }>();
  for (const schema of named) {
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id) registry.add(schema, { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  const out: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as JsonSchema;
    out[id] = rest;
  }
  return out;
}

/**
 * A severity name as the routes take it, any case: the JSON Schema of core's `SeveritySchema` (a case-insensitive
 * pattern), so the document cannot refuse `HIGH` where the server takes it.
 */
function severityName(): JsonSchema {
  const { $schema: _s, ...schema } = z.toJSONSchema(SeveritySchema, { target: 'draft-2020-12', io: 'input' });
  return schema;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string) => ({ 'application/json': { schema: ref(id) } });
const problem = (description: string) => ({ description, content: { [PROBLEM_JSON]: { schema: ref('Problem') } } });

const COMMON_ERRORS = {
  '401': problem('No valid credentials'),
  '403': problem('The credentials lack the scope this operation needs'),
  '429': {
    ...problem('Too many requests from this client; Retry-After says when to try again'),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  },
};

const BODY_ERRORS = {
  '400': problem(
    'Malformed JSON, JSON nested too deep or with a key twice in one object, a field of the wrong type, or an invalid indicator',
  ),
  '413': problem('The body (or the batch) is larger than the server accepts'),
  '415': problem('The body is not application/json'),
};

/** The options the document describes. */
export interface OpenApiOptions {
  prefixes: readonly string[];
  batchLimit: number;
  bodyLimit: number;
  security: ReadonlyArray<'bearer' | 'basic'>;
  /** Whether `/health` and `/metrics` need credentials (the server's `protectProbes`). */
  protectProbes?: boolean;
}

/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas that validate requests, for each
 * mounted prefix.
 */
export function openApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const prefix of options.prefixes) {
    const p = (path: string) => `${prefix}${path}`;
    paths[p('/threats/scan')] = {
      post: {
        operationId: opId(prefix, 'scan'),
        summary: 'Ask every configured source about one indicator and return the verdict with each answer',
        requestBody: { required: true, content: json('ScanRequest') },
        responses: {
          '200': { description: 'The verdict and every source’s answer', content: json('ScanResponse') },
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/threats/batch')] = {
      post: {
        operationId: opId(prefix, 'batch'),
        summary: `Scan up to ${options.batchLimit} indicators; each item reports its own result or problem`,
        requestBody: { required: true, content: json('BatchRequest') },
        responses: {
          '200': { description: 'One entry per indicator, in order', content: json('BatchResponse') },
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/correlate')] = {
      post: {
        operationId: opId(prefix, 'correlate'),
        summary:
          'The full correlation of one indicator: confidence, consensus, risk score and each source’s contribution',
        requestBody: { required: true, content: json('CorrelateRequest') },
        responses: {
          '200': { description: 'The correlation', content: json('CorrelationResponse') },
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/feeds/status')] = {
      get: {
        operationId: opId(prefix, 'feedStatus'),
        summary: 'Breaker state, quota left, last error and latency of each feed',
        responses: { '200': { description: 'Per feed', content: json('FeedStatusResponse') }, ...COMMON_ERRORS },
      },
    };
    const proxyOperation = (method: 'get' | 'post') => ({
      operationId: opId(prefix, method === 'get' ? 'proxyFeedGet' : 'proxyFeedPost'),
      summary:
        "The feed proxy for pages (core's browser.corsProxy): asks the configured feed at the full URL appended after /proxy/, adding its API key server-side",
      description:
        'Reaches only the endpoints of the client’s built-in sources (same scheme, host and port, a path under the endpoint’s); sends the feed none of the request’s headers; follows no redirect; waits at most 15 s; passes back the status, body, content-type, retry-after and rate-limit headers.',
      parameters: [
        {
          name: 'feedUrl',
          in: 'path',
          required: true,
          description:
            'The full feed URL, appended as is (the cors-anywhere convention): `/api/v1/proxy/https://otx.alienvault.com/api/v1/...`',
          schema: { type: 'string', maxLength: 8192 },
        },
      ],
      ...(method === 'post'
        ? {
            requestBody: {
              required: true,
              description: 'Sent on to the feed as a form (URLhaus)',
              content: {
                'application/json': {
                  schema: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 },
                },
                'application/x-www-form-urlencoded': {
                  schema: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 },
                },
              },
            },
          }
        : {}),
      responses: {
        '200': { description: 'The feed’s answer, as it sent it (any status below 500 is passed back)' },
        '400': problem('The feed URL is malformed, has a dot segment, user information or a control character'),
        '414': problem('The feed URL is longer than 8192 characters'),
        '431': problem('The request line and headers together are larger than the server reads (16 KiB)'),
        ...(method === 'post'
          ? {
              '413': problem('The form is larger than the server accepts'),
              '415': problem('The body is neither application/json nor application/x-www-form-urlencoded'),
            }
          : {}),
        '502': problem('The feed could not be reached, redirected, answered 5xx or more than 4 MiB'),
        ...COMMON_ERRORS,
        '403': problem(
          'The credentials lack the scope this operation needs, or the feed URL is not under a configured feed’s endpoint',
        ),
      },
    });
    paths[p('/proxy/{feedUrl}')] = { get: proxyOperation('get'), post: proxyOperation('post') };
    paths[p('/quotas')] = {
      get: {
        operationId: opId(prefix, 'quotas'),
        summary:
          "What is left of each feed's quota per window: the cluster's figures when the client shares them (cluster.enabled), else its own",
        responses: { '200': { description: 'Per feed', content: json('QuotasResponse') }, ...COMMON_ERRORS },
      },
    };
    paths[p('/alerts')] = {
      get: {
        operationId: opId(prefix, 'listAlerts'),
        summary: 'Alerts, newest first, filtered by severity (exact or minimum) and time',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 100 } },
          {
            name: 'minSeverity',
            in: 'query',
            description:
              'Only alerts at least this severe (any case): `high` lists high and critical. With `severity`, an alert must pass both',
            schema: severityName(),
            example: 'High',
          },
          {
            name: 'severity',
            in: 'query',
            description:
              'Only alerts of exactly this severity, or of one of several comma-separated (`high` or `high,critical`; any case). With `minSeverity`, an alert must pass both: `severity=low&minSeverity=high` lists nothing',
            style: 'form',
            explode: false,
            schema: {
              type: 'array',
              items: severityName(),
              minItems: 1,
              maxItems: SEVERITIES.length,
            },
            example: ['high', 'CRITICAL'],
          },
          { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } },
        ],
        responses: {
          '200': { description: 'A page of alerts', content: json('AlertPage') },
          '400': problem('Invalid query'),
          ...COMMON_ERRORS,
        },
      },
      post: {
        operationId: opId(prefix, 'createAlert'),
        summary: 'Store an alert and deliver it to every started integration (in the background)',
        requestBody: { required: true, content: json('AlertCreate') },
        responses: {
          '201': { description: 'The stored alert', content: json('Alert') },
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/alerts/{id}')] = {
      get: {
        operationId: opId(prefix, 'getAlert'),
        summary: 'One alert, with the outcome of its delivery to each integration',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 200 } },
        ],
        responses: {
          '200': { description: 'The alert and its deliveries', content: json('Alert') },
          '400': problem('Invalid id'),
          '404': problem('No alert with this id is stored'),
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/alerts/{id}/redeliver')] = {
      post: {
        operationId: opId(prefix, 'redeliverAlert'),
        summary:
          'Deliver an alert again to each started integration that has not taken it (failed or pending), in the background',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 200 } },
        ],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
        },
        responses: {
          '202': {
            description: 'The alert, its deliveries as they stand when redelivery starts',
            content: json('Alert'),
          },
          '404': problem('No alert with this id is stored'),
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    paths[p('/campaigns')] = {
      get: {
        operationId: opId(prefix, 'campaigns'),
        summary:
          'The campaigns the client detected since the server started, each with its latest report, newest first',
        responses: { '200': { description: 'Campaigns', content: json('CampaignList') }, ...COMMON_ERRORS },
      },
    };
    paths[p('/stix/bundle')] = {
      post: {
        operationId: opId(prefix, 'stixBundle'),
        summary: 'Scan results written as a STIX 2.1 bundle (nothing is looked up)',
        requestBody: { required: true, content: json('StixBundleRequest') },
        responses: {
          '200': {
            description: "A STIX 2.1 bundle: threatlib's identity and one indicator per distinct indicator",
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...BODY_ERRORS,
          ...COMMON_ERRORS,
        },
      },
    };
    if (prefix !== '') paths[p('/openapi.json')] = openApiOperation(opId(prefix, 'openApi'));
  }
  paths['/openapi.json'] = openApiOperation('openApi');
  paths['/docs'] = {
    get: {
      operationId: 'docs',
      summary: 'The API reference, rendered from this document (Swagger UI, served by the server itself)',
      security: [],
      responses: {
        '200': { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  };
  paths['/'] = {
    get: {
      operationId: 'home',
      summary: 'A page linking the dashboard, the API reference and the OpenAPI document',
      security: [],
      responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  };
  paths['/app/'] = {
    get: {
      operationId: 'dashboard',
      summary:
        'The dashboard (scan, alerts, feeds, campaigns), an installable page that signs in with the API token; its files are under /app/',
      security: [],
      responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  };
  // Open probes say so with an empty security list; protected ones take the document's, and may answer 401.
  const probeErrors = options.protectProbes ? COMMON_ERRORS : {};
  paths['/health'] = {
    get: {
      operationId: 'health',
      summary: 'Liveness and readiness, with feed, cache, vault and integration health',
      ...(options.protectProbes ? {} : { security: [] }),
      responses: {
        ...probeErrors,
        '200': { description: 'Ready', content: json('HealthResponse') },
        '503': { description: 'Alive but not ready', content: json('HealthResponse') },
      },
    },
  };
  paths['/metrics'] = {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      ...(options.protectProbes ? {} : { security: [] }),
      responses: {
        ...probeErrors,
        '200': {
          description: 'Prometheus text exposition format',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '404': problem('Metrics are disabled (enterprise.monitoring.metrics is false on every mounted client)'),
      },
    },
  };
  const securitySchemes: Record<string, unknown> = {};
  if (options.security.includes('bearer')) securitySchemes.bearer = { type: 'http', scheme: 'bearer' };
  if (options.security.includes('basic')) securitySchemes.basic = { type: 'http', scheme: 'basic' };
  return {
    openapi: '3.1.0',
    info: {
      title: 'threatlib API',
      version: '1',
      description: `Threat-intelligence lookups and correlation. Request bodies are limited to ${options.bodyLimit} bytes; errors are RFC 9457 problem documents.`,
    },
    paths,
    components: { schemas: components(), securitySchemes },
    security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
  };
}

/** `GET` of this document, open to all (it describes the API; it holds no data). */
function openApiOperation(operationId: string) {
  return {
    get: {
      operationId,
      summary: 'This OpenAPI 3.1 document',
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI document',
          content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } },
        },
      },
    },
  };
}

function opId(prefix: string, name: string): string {
  const scope = prefix.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_|_$/g, '');
  return scope ? `${scope}_${name}` : name;
}
