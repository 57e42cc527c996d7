// What the OpenAPI document says a request may be is what the server takes: every request body schema renders in
// Swagger UI (no `not`, no `false` schema, which it shows as `never`), a real POST /alerts body is valid against
// AlertCreate and is stored, and the severity filters' published schemas take any case, as the route does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { type Json, json, post, serveForTest } from '../test-support/serve.js';

/** A validator of values against `schema`, resolving its `$ref`s in the published document. */
function validatorOf(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
  return (schema: Json, value: unknown) => {
    const check = schema.$ref
      ? ajv.getSchema(`openapi.json${schema.$ref}`)
      : ajv.compile({ ...schema, $defs: undefined });
    if (!check) throw new Error(`cannot compile ${JSON.stringify(schema)}`);
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

/** Every schema reachable from `schema`, following `$ref`s into the document's components. */
function reachable(document: Json, schema: Json, seen = new Set<unknown>()): Json[] {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const found: Json[] = [schema];
  if (typeof schema.$ref === 'string') {
    const id = schema.$ref.replace('#/components/schemas/', '');
    found.push(...reachable(document, document.components.schemas[id], seen));
  }
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) for (const item of value) found.push(...reachable(document, item, seen));
    else if (typeof value === 'object') found.push(...reachable(document, value, seen));
  }
  return found;
}

/**
 * What Swagger UI renders as `never`: a `not` keyword, or a `false` schema in a schema's place (a property, an
 * item). `additionalProperties: false` (a closed object) it shows as such, not as the object's type.
 */
function neverParts(schemas: readonly Json[]): string[] {
  const parts: string[] = [];
  for (const schema of schemas) {
    if ('not' in schema) parts.push(`not ${JSON.stringify(schema.not)}`);
    for (const [key, value] of Object.entries(schema)) {
      if (value === false && key !== 'additionalProperties') parts.push(`${key}: false`);
    }
  }
  return parts;
}

const alertBody = {
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
  timestamp: '2026-03-01T11:59:00.000Z',
};

describe('the request schemas of the OpenAPI document', () => {
  it('state no `not` and no `false` schema in any request body (Swagger UI shows those as never)', async () => {
    const { base } = await serveForTest();
    const document = await json(fetch(`${base}/api/v1/openapi.json`));
    let bodies = 0;
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (schema === undefined) continue;
        bodies += 1;
        expect(neverParts(reachable(document, schema)), `${method} ${path}`).toEqual([]);
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(4);
    expect(neverParts(reachable(document, document.components.schemas.AlertCreate))).toEqual([]);
  });

  it('take a real POST /api/v1/alerts body, in each form and case the route stores, and refuse what it refuses', async () => {
    const { base, call } = await serveForTest();
    const document = await json(fetch(`${base}/api/v1/openapi.json`));
    const validate = validatorOf(document);
    const body = document.paths['/api/v1/alerts'].post.requestBody.content['application/json'].schema;
    const taken = [
      alertBody,
      { ...alertBody, severity: 'CRITICAL' },
      { ...alertBody, indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 0 }] },
      { ...alertBody, indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 1 }] },
      { ...alertBody, indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 100 }] },
      { title: 'From a webhook', indicator: 'malicious-site.com', correlation: { confidence: 83 } },
    ];
    for (const [i, alert] of taken.entries()) {
      expect(validate(body, alert), `body ${i}`).toEqual([]);
      expect((await call('/api/v1/alerts', post(alert))).status, `body ${i}`).toBe(201);
    }
    const refused = [
      { ...alertBody, indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 0.5 }] },
      { ...alertBody, indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 101 }] },
      { ...alertBody, indicator: 'malicious-site.com' },
      { title: 'No severity', indicators: alertBody.indicators },
      { ...alertBody, severity: 'severe' },
    ];
    for (const [i, alert] of refused.entries()) {
      expect(validate(body, alert), `refused ${i}`).not.toEqual([]);
      expect((await call('/api/v1/alerts', post(alert))).status, `refused ${i}`).toBe(400);
    }
  });

  it('publish severity filters that take the documented example and any case, as GET /api/v1/alerts does', async () => {
    const { base, call } = await serveForTest();
    const document = await json(fetch(`${base}/api/v1/openapi.json`));
    const validate = validatorOf(document);
    const parameters = document.paths['/api/v1/alerts'].get.parameters as Json[];
    const parameter = (name: string) => parameters.find((p) => p.name === name);
    const severity = parameter('severity');
    const minSeverity = parameter('minSeverity');
    expect(severity.example).toBeDefined();
    expect(minSeverity.example).toBeDefined();
    // style form, explode false: the array is sent comma-separated.
    const asQuery = (value: string | string[]) => (Array.isArray(value) ? value.join(',') : value);
    for (const [name, values] of [
      ['severity', [severity.example, ['HIGH', 'critical'], ['Informational']]],
      ['minSeverity', [minSeverity.example, 'HIGH', 'low']],
    ] as const) {
      for (const value of values) {
        expect(validate(parameter(name).schema, value), `${name}=${value}`).toEqual([]);
        const listed = await call(`/api/v1/alerts?${name}=${encodeURIComponent(asQuery(value))}`);
        expect(listed.status, `${name}=${value}`).toBe(200);
      }
    }
    // The published pattern itself (an ECMA-262 regular expression, no flags) takes an upper-case name.
    const pattern = new RegExp(severity.schema.items.pattern, 'u');
    expect(pattern.test('HIGH')).toBe(true);
    expect(pattern.test('severe')).toBe(false);
    expect(validate(severity.schema, ['severe'])).not.toEqual([]);
    expect((await call('/api/v1/alerts?severity=severe')).status).toBe(400);
  });
});
