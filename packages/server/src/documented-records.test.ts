import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { afterEach, describe, expect, it } from 'vitest';
import { APIServer } from './api-server.js';
import { exampleBlocklistPath } from './cli/embedded-config.js';

/*
 * The records as the interface document writes them (`{severity: 'high', indicators: [{type: 'domain', ...}]}`,
 * `{indicator: '8.8.8.8', type: 'ip'}`) go through the REST API as written.
 */

const TOKEN = 'test-token-0123456789';
const running: APIServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function serve() {
  const client = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'example', file: exampleBlocklistPath() }],
      security: { enforceHttps: false },
    } as ThreatConfig,
    { env: false, logger: silentLogger },
  );
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] } });
  server.mount('/api/v1', client);
  running.push(server);
  const base = await server.start();
  return async (path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are whatever the assertions check.
    return { status: response.status, body: (await response.json()) as any };
  };
}

const documentedAlert = {
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
  timestamp: '2026-03-01T11:59:00.000Z',
};

describe('POST /alerts with the documented alert', () => {
  it('answers 201 with the stored alert, and GET /alerts lists it back', async () => {
    const call = await serve();
    const created = await call('/api/v1/alerts', documentedAlert);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...documentedAlert, id: expect.any(String), deliveries: [] });
    const listed = await call('/api/v1/alerts?minSeverity=high');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([created.body]);
    expect((await call('/api/v1/alerts?minSeverity=critical')).body.items).toEqual([]);
  });

  it('takes the webhook-handler form {title, indicator, correlation} from POST /correlate', async () => {
    const call = await serve();
    const correlation = (await call('/api/v1/correlate', { indicator: '45.148.10.240', type: 'ip' })).body;
    const created = await call('/api/v1/alerts', {
      title: 'High confidence threat detected',
      indicator: '45.148.10.240',
      correlation,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      severity: expect.stringMatching(/^(informational|low|medium|high|critical)$/),
      riskScore: correlation.riskScore,
      indicators: [{ type: 'ipv4', value: '45.148.10.240', confidence: correlation.confidence }],
    });
  });

  it('refuses a bad alert with a 400 problem naming each field', async () => {
    const call = await serve();
    const refused = await call('/api/v1/alerts', {
      ...documentedAlert,
      severity: 'urgent',
      indicators: [{ type: 'ip', value: 'malicious-site.com' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'severity', message: expect.stringContaining('expected one of informational, low, medium') },
      ]),
    );
    expect(refused.body.detail).toContain('indicators.0.value: not a valid ip: expected an IPv4 or IPv6 address');
  });
});

describe('POST /alerts with a confidence on the wrong scale', () => {
  it('answers 400 saying what a 0..1 score would be on the 0..100 scale; 1 (1 %) is taken', async () => {
    const call = await serve();
    const refused = await call('/api/v1/alerts', {
      ...documentedAlert,
      indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 0.9 }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: 'indicators.0.confidence', message: 'confidence is 0..100; got 0.9 (did you mean 90?)' },
    ]);
    const taken = await call('/api/v1/alerts', {
      ...documentedAlert,
      indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 1 }],
    });
    expect(taken.status).toBe(201);
  });
});

describe("indicator type 'ip'", () => {
  it('scans {indicator: "8.8.8.8", type: "ip"} and reports ipv4', async () => {
    const call = await serve();
    const scan = await call('/api/v1/threats/scan', { indicator: '8.8.8.8', type: 'ip' });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ indicator: '8.8.8.8', type: 'ipv4' });
  });

  it('works in /threats/batch and /correlate, IPv6 included', async () => {
    const call = await serve();
    const batch = await call('/api/v1/threats/batch', {
      indicators: [
        { indicator: '8.8.8.8', type: 'ip' },
        { indicator: '2001:DB8::1', type: 'ip' },
        { indicator: 'evil.com', type: 'hostname' },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((r: { result: { type: string } }) => r.result.type)).toEqual([
      'ipv4',
      'ipv6',
      'domain',
    ]);
    const correlation = await call('/api/v1/correlate', { indicator: '8.8.8.8', type: 'ip' });
    expect(correlation.status).toBe(200);
    expect(correlation.body.type).toBe('ipv4');
  });

  it('refuses a domain given as ip with a 400 saying what it is', async () => {
    const call = await serve();
    const refused = await call('/api/v1/threats/scan', { indicator: 'evil.com', type: 'ip' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      type: 'https://threatlib.dev/problems/invalid-indicator',
      detail: expect.stringContaining('not a valid ip: expected an IPv4 or IPv6 address; this is a domain name'),
    });
  });

  it('is in the OpenAPI document, with the severity names', async () => {
    const call = await serve();
    const { schemas } = (await call('/openapi.json')).body.components;
    expect(schemas.ScanRequest.properties.type.enum).toEqual(expect.arrayContaining(['ip', 'domain', 'ipv4']));
    expect(schemas.Alert.properties.severity.enum).toEqual(['informational', 'low', 'medium', 'high', 'critical']);
  });
});
