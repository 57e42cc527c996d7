import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSentinelEmulator, startSentinelEmulator } from './sentinel.js';
import { checkStixPattern } from './sentinel-stix-pattern.js';
import { SENTINEL_TI_DEFAULTS as D } from './sentinel-workspace.js';

let now = Date.parse('2026-03-01T12:00:00Z');
let emulator: RunningSentinelEmulator;

beforeAll(async () => {
  emulator = await startSentinelEmulator({ now: () => now, requestsPerMinute: 3 });
});
afterEach(() => {
  emulator.reset();
  // Each test starts with the per-minute rate unused.
  now += 60_000;
});
afterAll(() => emulator.close());

const ARM = 'https://management.azure.com/';
const uploadUrl = (workspaceId = D.workspaceId, apiVersion = '2024-02-01-preview') =>
  `${emulator.url}/workspaces/${workspaceId}/threat-intelligence-stix-objects:upload?api-version=${apiVersion}`;
const workspacePath = `/subscriptions/${D.subscriptionId}/resourceGroups/${D.resourceGroup}/providers/Microsoft.OperationalInsights/workspaces/${D.workspaceName}`;

function indicator(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--${String(n).padStart(8, '0')}-71a2-445c-ab86-927291df48f8`,
    created: '2026-03-01T11:00:00.000Z',
    modified: '2026-03-01T11:00:00.000Z',
    pattern: `[ipv4-addr:value = '198.51.100.${n}']`,
    pattern_type: 'stix',
    valid_from: '2026-03-01T11:00:00.000Z',
    ...extra,
  };
}

async function post(url: string, body: unknown, audience = ARM, headers: Record<string, string> = {}) {
  const token = emulator.sentinel.authority.issue(D.clientId, audience);
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

describe('Sentinel upload API (STIX objects)', () => {
  it('publishes every valid object and answers 200 with an empty body', async () => {
    const answer = await post(uploadUrl(), { sourcesystem: 'threatlib', stixobjects: [indicator(1), indicator(2)] });
    expect(answer).toMatchObject({ status: 200, body: undefined });
    expect([...emulator.sentinel.objects.keys()]).toEqual([indicator(1).id, indicator(2).id]);
    expect(emulator.sentinel.objects.get(indicator(1).id as string)?.sourcesystem).toBe('threatlib');
  });

  it("reports a bad record by its index, in Sentinel's words, and publishes the others", async () => {
    const { id: _id, ...noId } = indicator(2);
    const answer = await post(uploadUrl(), {
      sourcesystem: 'threatlib',
      stixobjects: [indicator(1), noId, indicator(3, { pattern: "[ipv4-addr:value = '1.2.3.4]" }), indicator(4)],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toEqual([
      { recordIndex: 1, errorMessages: ['Error for Property=id: Required property is missing. Actual value: NULL.'] },
      {
        recordIndex: 2,
        errorMessages: [
          expect.stringMatching(/^Error for Property=pattern: The STIX pattern is invalid: unterminated string/),
        ],
      },
    ]);
    expect([...emulator.sentinel.objects.keys()]).toEqual([indicator(1).id, indicator(4).id]);
  });

  it('answers 400 with the errors when no object is valid', async () => {
    const answer = await post(uploadUrl(), {
      sourcesystem: 'threatlib',
      stixobjects: [indicator(1, { valid_from: undefined, confidence: 101 })],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].errorMessages).toEqual([
      'Error for Property=confidence: The value must be an integer from 0 to 100. Actual value: 101.',
      'Error for Property=valid_from: Required property is missing. Actual value: NULL.',
    ]);
    expect(emulator.sentinel.objects.size).toBe(0);
  });

  it('refuses more than 100 objects in one request, and a request without sourcesystem', async () => {
    const many = Array.from({ length: 101 }, (_, i) => indicator(i));
    expect(await post(uploadUrl(), { sourcesystem: 'threatlib', stixobjects: many })).toMatchObject({
      status: 400,
      body: { message: 'The request has 101 STIX objects; at most 100 are allowed per request.' },
    });
    expect((await post(uploadUrl(), { stixobjects: [indicator(1)] })).status).toBe(400);
    expect((await post(uploadUrl(), { sourcesystem: 'Microsoft Sentinel', stixobjects: [indicator(1)] })).status).toBe(
      400,
    );
    now += 60_000; // three requests a minute in this emulator
    expect((await post(uploadUrl(), '{not json')).status).toBe(400);
    expect(emulator.sentinel.objects.size).toBe(0);
  });

  it("checks the token: its signature, and ARM's audience", async () => {
    const logAnalytics = await post(
      uploadUrl(),
      { sourcesystem: 't', stixobjects: [indicator(1)] },
      'https://api.loganalytics.io',
    );
    expect(logAnalytics.status).toBe(401);
    expect(logAnalytics.body.message).toContain("Invalid token audience 'https://api.loganalytics.io'");
    const forged = await fetch(uploadUrl(), {
      method: 'POST',
      headers: { authorization: 'Bearer e30.e30.c2lnbmF0dXJl', 'content-type': 'application/json' },
      body: JSON.stringify({ sourcesystem: 't', stixobjects: [indicator(1)] }),
    });
    expect(forged.status).toBe(401);
    const none = await fetch(uploadUrl(), { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(emulator.sentinel.objects.size).toBe(0);
  });

  it('answers 404 for an unknown workspace and 400 for an unknown api-version', async () => {
    const body = { sourcesystem: 't', stixobjects: [indicator(1)] };
    expect((await post(uploadUrl('00000000-0000-4000-8000-000000000000'), body)).status).toBe(404);
    expect((await post(uploadUrl(D.workspaceId, '2023-12-01'), body)).status).toBe(400);
  });

  it('answers 429 with Retry-After past its requests per minute, and takes requests again a minute later', async () => {
    const body = { sourcesystem: 't', stixobjects: [indicator(1)] };
    for (let i = 0; i < 3; i++) expect((await post(uploadUrl(), body)).status).toBe(200);
    now += 20_000;
    const refused = await post(uploadUrl(), body);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.body).toEqual({ statusCode: 429, message: 'Rate limit is exceeded. Try again in 40 seconds.' });
    now += 40_000;
    expect((await post(uploadUrl(), body)).status).toBe(200);
  });

  it('answers 429 when a test asks for it', async () => {
    emulator.sentinel.throttleNext(1, 2);
    const body = { sourcesystem: 't', stixobjects: [indicator(1)] };
    const refused = await post(uploadUrl(), body);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '2']);
    expect((await post(uploadUrl(), body)).status).toBe(200);
  });
});

describe('Sentinel through Azure Resource Manager', () => {
  it('answers the workspace with its GUID as customerId', async () => {
    const token = emulator.sentinel.authority.issue(D.clientId, ARM);
    const response = await fetch(`${emulator.url}${workspacePath}?api-version=2023-09-01`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { properties: { customerId: string } }).properties.customerId).toBe(
      D.workspaceId,
    );
  });

  it('creates a legacy indicator, and refuses one without a pattern', async () => {
    const url = `${emulator.url}${workspacePath}/providers/Microsoft.SecurityInsights/threatIntelligence/main/createIndicator?api-version=2025-09-01`;
    const properties = {
      pattern: "[domain-name:value = 'evil.example']",
      patternType: 'stix',
      source: 'threatlib',
      displayName: 'evil.example',
      validFrom: '2026-03-01T11:00:00.000Z',
      confidence: 85,
    };
    const created = await post(url, { kind: 'indicator', properties });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'indicator',
      properties: { ...properties, friendlyName: 'evil.example' },
    });
    expect(emulator.sentinel.legacyIndicators.size).toBe(1);
    const { pattern: _pattern, ...noPattern } = properties;
    expect(await post(url, { kind: 'indicator', properties: noPattern })).toMatchObject({
      status: 400,
      body: { error: { code: 'BadRequest', message: "Required property 'pattern' not found in JSON." } },
    });
    const wrongAudience = await post(url, { kind: 'indicator', properties }, 'https://monitor.azure.com');
    expect(wrongAudience.body.error.code).toBe('InvalidAuthenticationTokenAudience');
    expect(emulator.sentinel.legacyIndicators.size).toBe(1);
  });
});

describe('STIX pattern checker', () => {
  it.each([
    "[ipv4-addr:value = '198.51.100.7']",
    "[file:hashes.'SHA-256' = 'aec070645fe53ee3b3763059376134f058cc337247c978add178b6ccdfb0019f']",
    "[url:value = 'http://x.example/it\\'s\\\\here']",
    "[domain-name:value = 'a.example' OR domain-name:value = 'b.example'] AND [ipv6-addr:value = '::1']",
    "([email-addr:value LIKE '%@evil.example'] FOLLOWEDBY [x-custom:count > 3]) WITHIN 60 SECONDS",
    "[network-traffic:dst_ref[*].value IN ('203.0.113.1', '203.0.113.2')] START t'2026-01-01T00:00:00Z' STOP t'2026-02-01T00:00:00Z'",
    "[file:name MATCHES '^x'] REPEATS 5 TIMES",
    "[artifact:payload_bin = b'aGVsbG8=']",
  ])('takes %s', (pattern) => {
    expect(() => checkStixPattern(pattern)).not.toThrow();
  });

  it.each([
    ['', /empty pattern/],
    ["ipv4-addr:value = '1.2.3.4'", /expected '\['/],
    ["[ipv4-addr:value = 'it's']", /unterminated string/],
    ["[url:value = 'a\\b']", /invalid escape/],
    ["[ipv4-addr:value = '1.2.3.4'", /expected "\]"/],
    ["[ipv4-addr = '1.2.3.4']", /expected ":"/],
    ["[file:hashes.'SHA-256' LIKE 5]", /LIKE takes a string/],
    ['[x:y = 1] WITHIN -1 SECONDS', /positive/],
  ])('refuses %j', (pattern, reason) => {
    expect(() => checkStixPattern(pattern)).toThrow(reason);
  });
});
