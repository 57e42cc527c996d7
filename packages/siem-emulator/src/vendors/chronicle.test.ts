import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { request } from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CA } from '../emulator.js';
import { type RunningSiemEmulator, startSiemEmulator } from '../siem-emulator.js';
import { CHRONICLE_DEFAULTS, CHRONICLE_PERMISSIONS } from './chronicle.js';
import { CHRONICLE_TOKEN_PATH, GOOGLE_TOKEN_AUDIENCE, type ServiceAccountKeyFile } from './chronicle-oauth.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field.
  body: any;
}

let emulator: RunningSiemEmulator;
let key: ServiceAccountKeyFile;
const base = `/v1alpha/projects/${CHRONICLE_DEFAULTS.project}/locations/${CHRONICLE_DEFAULTS.location}/instances/${CHRONICLE_DEFAULTS.instance}`;
const CLOUD = 'https://www.googleapis.com/auth/cloud-platform';

function call(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${emulator.url}${path}`, { method, headers, ca: TEST_CA }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 assertion as google-auth-library makes one, with `claims` overriding its defaults. */
function assertion(privateKey: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const iat = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', ...header });
  const body = b64({
    iss: key.client_email,
    scope: CLOUD,
    aud: GOOGLE_TOKEN_AUDIENCE,
    iat,
    exp: iat + 3600,
    ...claims,
  });
  const signature = sign('RSA-SHA256', Buffer.from(`${head}.${body}`), createPrivateKey(privateKey)).toString(
    'base64url',
  );
  return `${head}.${body}.${signature}`;
}

function tokenRequest(form: Record<string, string>, type = 'application/x-www-form-urlencoded') {
  return call('POST', CHRONICLE_TOKEN_PATH, { 'content-type': type }, new URLSearchParams(form).toString());
}

const grant = (jwt: string) =>
  tokenRequest({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt });

async function accessToken(claims: Record<string, unknown> = {}): Promise<string> {
  const answer = await grant(assertion(key.private_key, claims));
  expect(answer.status).toBe(200);
  return answer.body.access_token;
}

const event = (udm: Record<string, unknown> = {}) => ({
  udm: {
    metadata: { eventTimestamp: '2026-01-02T03:04:05.678Z', eventType: 'GENERIC_EVENT', productName: 'test' },
    target: { ip: ['198.51.100.7'] },
    ...udm,
  },
});

function importEvents(token: string | undefined, body: unknown, type = 'application/json') {
  return call(
    'POST',
    `${base}/events:import`,
    { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    typeof body === 'string' ? body : JSON.stringify(body),
  );
}

beforeAll(async () => {
  emulator = await startSiemEmulator();
  key = emulator.chronicle.serviceAccountKey(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => {
  emulator.reset();
});

describe('the Chronicle emulator’s OAuth token endpoint', () => {
  it('issues a bearer access token for an RS256 assertion signed with the account’s key', async () => {
    const answer = await grant(assertion(key.private_key));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      expires_in: 3599,
      token_type: 'Bearer',
    });
    expect(key.token_uri).toBe(`${emulator.url}${CHRONICLE_TOKEN_PATH}`);
  });

  it('refuses what Google refuses, with its OAuth error and description', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const now = Math.floor(Date.now() / 1000);
    const cases: [Promise<Answer>, string, string | RegExp][] = [
      [grant(assertion(stranger)), 'invalid_grant', 'Invalid JWT Signature.'],
      [
        grant(assertion(key.private_key, { iss: 'nobody@x.iam.gserviceaccount.com' })),
        'invalid_grant',
        'Invalid grant: account not found',
      ],
      [
        grant(assertion(key.private_key, { iat: now - 7200, exp: now - 3600 })),
        'invalid_grant',
        /^Invalid JWT: Token must be a short-lived token \(60 minutes\)/,
      ],
      [grant(assertion(key.private_key, { exp: now + 7200 })), 'invalid_grant', /short-lived token/],
      [grant(assertion(key.private_key, { aud: emulator.url })), 'invalid_grant', /Failed audience check/],
      [
        grant(assertion(key.private_key, { scope: undefined })),
        'invalid_scope',
        'Invalid OAuth scope or ID token audience provided.',
      ],
      [grant(assertion(key.private_key, {}, { alg: 'HS256' })), 'invalid_grant', 'Invalid JWT Signature.'],
      [grant('not.a-jwt'), 'invalid_grant', /^Invalid JWT/],
      [
        tokenRequest({ grant_type: 'client_credentials' }),
        'unsupported_grant_type',
        'Invalid grant_type: client_credentials',
      ],
      [
        tokenRequest({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' }),
        'invalid_request',
        'Missing required parameter: assertion',
      ],
      [tokenRequest({ grant_type: 'x' }, 'application/json'), 'invalid_request', 'Bad Request'],
    ];
    for (const [pending, error, description] of cases) {
      const answer = await pending;
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe(error);
      expect(answer.body.error_description).toMatch(description);
    }
    expect(emulator.chronicle.oauth.issued).toEqual([]);
  });

  it('refuses a key once it is revoked', async () => {
    const other = emulator.chronicle.serviceAccountKey(emulator.url, 'second@threatlib-test.iam.gserviceaccount.com');
    emulator.chronicle.oauth.revokeKey(other.private_key_id);
    const answer = await grant(assertion(other.private_key, { iss: other.client_email }));
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the Chronicle emulator’s events:import', () => {
  it('checks the bearer token first: none, or one it did not issue, is 401 UNAUTHENTICATED in Google’s envelope', async () => {
    const none = await importEvents(undefined, 'not even json', 'text/plain');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      message: /missing required authentication credential/,
    });
    const wrong = await importEvents('ya29.forged', { inlineSource: { events: [event()] } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toMatch(/^Request had invalid authentication credentials/);
    expect(wrong.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('then the token’s scopes and the account’s permission on the instance: 403 PERMISSION_DENIED', async () => {
    const narrow = await accessToken({ scope: 'https://www.googleapis.com/auth/devstorage.read_only' });
    const scoped = await importEvents(narrow, { inlineSource: { events: [event()] } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'Request had insufficient authentication scopes.',
    });
    const token = await accessToken();
    emulator.chronicle.deny(key.client_email, CHRONICLE_PERMISSIONS.import);
    const denied = await importEvents(token, { inlineSource: { events: [event()] } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      `Permission 'chronicle.events.import' denied on resource '//chronicle.googleapis.com/${emulator.chronicle.instanceName}' (or it may not exist).`,
    );
    const elsewhere = await call(
      'POST',
      `/v1alpha/projects/other/locations/us/instances/x/events:import`,
      {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      '{}',
    );
    expect(elsewhere.status).toBe(403);
    expect(emulator.chronicle.events).toEqual([]);
  });

  it('then the Content-Type and the body, refusing unknown names and invalid values as Google words them', async () => {
    const token = await accessToken();
    const refused: [unknown, string, RegExp][] = [
      ['{"inlineSource":', 'application/json', /^Invalid JSON payload received/],
      [{ inlineSource: { events: [event()] } }, 'text/plain', /Content-Type/],
      [{ events: [event()] }, 'application/json', /Unknown name "events": Cannot find field/],
      [{ inlineSource: { events: [] } }, 'application/json', /events is required/],
      [
        { inlineSource: { events: [event({ colour: 'red' })] } },
        'application/json',
        /Unknown name "colour" at 'inline_source.events\[0\].udm': Cannot find field\./,
      ],
      [
        {
          inlineSource: {
            events: [event({ metadata: { eventTimestamp: '2026-01-02T03:04:05Z', eventType: 'SOMETHING' } })],
          },
        },
        'application/json',
        /^Invalid value at 'inline_source.events\[0\].udm.metadata.event_type' \(type.googleapis.com\/backstory.Metadata.EventType\), "SOMETHING"$/,
      ],
      [
        {
          inlineSource: { events: [event({ metadata: { eventTimestamp: 'yesterday', eventType: 'GENERIC_EVENT' } })] },
        },
        'application/json',
        /event_timestamp' \(type.googleapis.com\/google.protobuf.Timestamp\)/,
      ],
      [
        { inlineSource: { events: [event({ metadata: { eventType: 'GENERIC_EVENT' } })] } },
        'application/json',
        /event_timestamp is required/,
      ],
      [
        { inlineSource: { events: [event({ target: { ip: '198.51.100.7' } })] } },
        'application/json',
        /Invalid value at 'inline_source.events\[0\].udm.target.ip'/,
      ],
      [
        { inlineSource: { events: [event({ securityResult: [{ severity: 'SEVERE' }] })] } },
        'application/json',
        /ProductSeverity/,
      ],
    ];
    for (const [body, type, message] of refused) {
      const answer = await importEvents(token, body, type);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.status).toBe('INVALID_ARGUMENT');
      expect(answer.body.error.message).toMatch(message);
    }
    expect(emulator.chronicle.events).toEqual([]);
  });

  it('imports all of a request or none of it', async () => {
    const token = await accessToken();
    const bad = await importEvents(token, {
      inlineSource: { events: [event(), event({ metadata: { eventType: 'GENERIC_EVENT' } })] },
    });
    expect(bad.status).toBe(400);
    expect(emulator.chronicle.events).toHaveLength(0);
    const good = await importEvents(token, {
      inline_source: { events: [event(), event({ target: { hostname: 'h' } })] },
    });
    expect(good).toMatchObject({ status: 200, body: {} });
    expect(emulator.chronicle.events).toHaveLength(2);
    expect(emulator.chronicle.events[0]).toMatchObject({ account: key.client_email, request: 0 });
  });

  it('answers 429 RESOURCE_EXHAUSTED with Retry-After while a quota is exhausted, after checking the caller', async () => {
    const token = await accessToken();
    emulator.chronicle.exhaustQuota(1, 7);
    expect((await importEvents('ya29.nope', { inlineSource: { events: [event()] } })).status).toBe(401);
    const limited = await importEvents(token, { inlineSource: { events: [event()] } });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', message: /^Quota exceeded/ });
    expect((await importEvents(token, { inlineSource: { events: [event()] } })).status).toBe(200);
  });

  it('reads snake_case names as Google’s JSON mapping does, keeping them in lowerCamelCase', async () => {
    const token = await accessToken();
    const answer = await importEvents(token, {
      inline_source: {
        events: [
          {
            udm: {
              metadata: { event_timestamp: '2026-01-02T03:04:05Z', event_type: 'SCAN_HOST', product_name: 'p' },
              security_result: [{ risk_score: 7.5, confidence_score: 90, severity: 'HIGH' }],
            },
          },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(emulator.chronicle.events[0]?.udm).toEqual({
      metadata: { eventTimestamp: '2026-01-02T03:04:05Z', eventType: 'SCAN_HOST', productName: 'p' },
      securityResult: [{ riskScore: 7.5, confidenceScore: 90, severity: 'HIGH' }],
    });
  });
});

describe('the Chronicle emulator’s udmSearch', () => {
  const search = (token: string, params: Record<string, string>) =>
    call('GET', `${base}:udmSearch?${new URLSearchParams(params)}`, { authorization: `Bearer ${token}` });

  it('answers the events matching the query within [start, end), newest first', async () => {
    const token = await accessToken();
    const at = (iso: string, ip: string) =>
      event({ metadata: { eventTimestamp: iso, eventType: 'GENERIC_EVENT' }, target: { ip: [ip] } });
    await importEvents(token, {
      inlineSource: {
        events: [
          at('2026-01-01T00:00:00Z', '203.0.113.1'),
          at('2026-01-02T00:00:00Z', '203.0.113.1'),
          at('2026-01-03T00:00:00Z', '203.0.113.1'),
          at('2026-01-02T00:00:00Z', '203.0.113.2'),
        ],
      },
    });
    emulator.chronicle.index({
      metadata: { eventTimestamp: '2026-01-02T12:00:00Z', eventType: 'NETWORK_CONNECTION' },
      about: [{ ip: ['203.0.113.1'] }],
    } as never);
    const answer = await search(token, {
      query: 'target.ip = "203.0.113.1" OR about.ip = "203.0.113.1"',
      'timeRange.startTime': '2026-01-01T12:00:00Z',
      'timeRange.endTime': '2026-01-03T00:00:00Z',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.moreDataAvailable).toBe(false);
    expect(
      answer.body.events.map((e: { udm: { metadata: { eventTimestamp: string } } }) => e.udm.metadata.eventTimestamp),
    ).toEqual(['2026-01-02T12:00:00Z', '2026-01-02T00:00:00Z']);
    expect(answer.body.events[0].name).toMatch(new RegExp(`^${emulator.chronicle.instanceName}/events/`));
    const grouped = await search(token, {
      query: 'ip = "203.0.113.1"',
      'timeRange.startTime': '2025-01-01T00:00:00Z',
      'timeRange.endTime': '2027-01-01T00:00:00Z',
      limit: '2',
    });
    expect(grouped.body.events).toHaveLength(2);
    expect(grouped.body.moreDataAvailable).toBe(true);
  });

  it('refuses a search without a query or a time range, or with a query it cannot compile', async () => {
    const token = await accessToken();
    const range = { 'timeRange.startTime': '2026-01-01T00:00:00Z', 'timeRange.endTime': '2026-01-02T00:00:00Z' };
    for (const params of [
      range,
      { query: 'ip = "1.2.3.4"' },
      { query: 'ip = ', ...range },
      { query: 'ip = "1.2.3.4"', 'timeRange.startTime': 'today', 'timeRange.endTime': '2026-01-02T00:00:00Z' },
    ]) {
      const answer = await search(token, params as Record<string, string>);
      expect(answer.status, JSON.stringify(params)).toBe(400);
      expect(answer.body.error.status).toBe('INVALID_ARGUMENT');
    }
    expect((await search('ya29.nope', { query: 'ip = "1"', ...range })).status).toBe(401);
  });

  it('answers instances.get for the instance it serves, 403 for any other', async () => {
    const token = await accessToken();
    expect(await call('GET', base, { authorization: `Bearer ${token}` })).toMatchObject({
      status: 200,
      body: { name: emulator.chronicle.instanceName },
    });
    const other = await call('GET', '/v1alpha/projects/p/locations/eu/instances/i', {
      authorization: `Bearer ${token}`,
    });
    expect(other.status).toBe(403);
  });
});
