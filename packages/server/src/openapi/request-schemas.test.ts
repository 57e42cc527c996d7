// What the OpenAPI document says a request may be is what the server takes: the severity filters' published schemas
// take any case, as the route does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { type Json, json, serveForTest } from '../test-support/serve.js';

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

describe('the request schemas of the OpenAPI document', () => {
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
