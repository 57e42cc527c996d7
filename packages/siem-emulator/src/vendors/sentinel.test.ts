import { request } from 'node:https';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_CA } from '../emulator.js';
import { type RunningSiemEmulator, type StartSiemEmulatorOptions, startSiemEmulator } from '../siem-emulator.js';
import { SENTINEL_DEFAULTS as D } from './sentinel-workspace.js';

let emulator: RunningSiemEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the vendors’ JSON bodies field by field.
  json: any;
}

async function start(options: StartSiemEmulatorOptions = {}): Promise<RunningSiemEmulator> {
  emulator = await startSiemEmulator(options);
  return emulator;
}

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  const running = emulator ?? (await start());
  return new Promise((resolve, reject) => {
    const req = request(
      `${running.url}${path}`,
      { method: init.method ?? 'POST', headers: init.headers ?? {}, ca: TEST_CA },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function token(resource: string, secret = D.clientSecret): Promise<Answer> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: D.clientId,
    client_secret: secret,
    scope: `${resource}/.default`,
  }).toString();
  return call(`/${D.tenantId}/oauth2/v2.0/token`, { headers: form, body });
}

async function bearer(resource: string): Promise<Record<string, string>> {
  const answer = await token(resource);
  return { authorization: `Bearer ${answer.json.access_token}` };
}

const ingestPath = `/dataCollectionRules/${D.dataCollectionRuleId}/streams/${D.streamName}?api-version=2023-01-01`;
const queryPath = `/v1/workspaces/${D.workspaceId}/query`;
const incidentPath = (id: string, version = '2025-09-01') =>
  `/subscriptions/${D.subscriptionId}/resourceGroups/${D.resourceGroup}/providers/Microsoft.OperationalInsights/workspaces/${D.workspaceName}/providers/Microsoft.SecurityInsights/incidents/${id}?api-version=${version}`;
const json = { 'content-type': 'application/json' };

describe('Sentinel emulator: the Entra ID token authority', () => {
  it('issues a client-credentials token for a known app and answers AADSTS errors like Entra for the rest', async () => {
    const ok = await token('https://monitor.azure.com');
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
    const claims = JSON.parse(
      Buffer.from(String(ok.json.access_token).split('.')[1] as string, 'base64url').toString(),
    );
    expect(claims).toMatchObject({ aud: 'https://monitor.azure.com', tid: D.tenantId, appid: D.clientId });

    const wrong = await token('https://monitor.azure.com', 'not-the-secret');
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: 'invalid_client', error_codes: [7000215] });
    expect(wrong.json.error_description).toMatch(/^AADSTS7000215: Invalid client secret provided\./);
    expect(wrong.json.error_description).not.toContain('not-the-secret');

    const tenant = await call('/00000000-0000-0000-0000-000000000000/oauth2/v2.0/token', {
      headers: form,
      body: 'grant_type=client_credentials',
    });
    expect(tenant).toMatchObject({ status: 400, json: { error: 'invalid_request', error_codes: [90002] } });
    const scope = await call(`/${D.tenantId}/oauth2/v2.0/token`, {
      headers: form,
      body: `grant_type=client_credentials&client_id=${D.clientId}&client_secret=${encodeURIComponent(D.clientSecret)}&scope=https://monitor.azure.com/read`,
    });
    expect(scope).toMatchObject({ status: 400, json: { error: 'invalid_scope', error_codes: [1002012] } });
    const app = await call(`/${D.tenantId}/oauth2/v2.0/token`, {
      headers: form,
      body: 'grant_type=client_credentials&client_id=someone-else&client_secret=x&scope=https://monitor.azure.com/.default',
    });
    expect(app).toMatchObject({ status: 400, json: { error: 'unauthorized_client', error_codes: [700016] } });
  });

  it('serves the OpenID metadata MSAL reads, pointing at its own token endpoint', async () => {
    const running = await start();
    const answer = await call(`/${D.tenantId}/v2.0/.well-known/openid-configuration`, { method: 'GET' });
    expect(answer.status).toBe(200);
    expect(answer.json.token_endpoint).toBe(`https://127.0.0.1:${running.port}/${D.tenantId}/oauth2/v2.0/token`);
  });
});

describe('Sentinel emulator: Logs Ingestion API', () => {
  const rows = [{ TimeGenerated: '2026-01-02T03:04:05Z', AlertId: 'a1', Title: 'x', Extra: 'dropped column' }];

  it('checks the token (and its audience) first, then the api-version and rule, then the body', async () => {
    expect(await call(ingestPath, { headers: json, body: 'not json' })).toMatchObject({
      status: 401,
      json: { error: { code: 'InvalidAuthenticationToken' } },
    });
    const arm = await bearer('https://management.azure.com');
    expect(await call(ingestPath, { headers: { ...arm, ...json }, body: '[]' })).toMatchObject({
      status: 401,
      headers: { 'x-ms-error-code': 'InvalidAudience' },
    });
    const auth = await bearer('https://monitor.azure.com');
    expect(
      await call(ingestPath.replace('?api-version=2023-01-01', ''), { headers: { ...auth, ...json }, body: '[]' }),
    ).toMatchObject({ status: 400, json: { error: { code: 'MissingApiVersionParameter' } } });
    expect(
      await call(ingestPath.replace(D.dataCollectionRuleId, 'dcr-00000000000000000000000000000000'), {
        headers: { ...auth, ...json },
        body: '[]',
      }),
    ).toMatchObject({ status: 404, json: { error: { code: 'DataCollectionRuleNotFound' } } });
    expect(
      await call(ingestPath.replace(D.streamName, 'Custom-Other'), { headers: { ...auth, ...json }, body: '[]' }),
    ).toMatchObject({ status: 400, json: { error: { code: 'InvalidStream' } } });
    expect(await call(ingestPath, { headers: { ...auth, 'content-type': 'text/plain' }, body: '[]' })).toMatchObject({
      status: 415,
    });
    expect(await call(ingestPath, { headers: { ...auth, ...json }, body: '{"not": "an array"}' })).toMatchObject({
      status: 400,
      json: { error: { code: 'InvalidPayload' } },
    });
  });

  it('takes gzip bodies as the SDK sends them, keeps the declared columns and answers 204', async () => {
    const running = await start();
    const auth = await bearer('https://monitor.azure.com');
    const answer = await call(ingestPath, {
      headers: { ...auth, ...json, 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify([...rows, { Title: 'no time' }])),
    });
    expect(answer.status).toBe(204);
    expect(running.sentinel.rows()).toEqual([{ TimeGenerated: '2026-01-02T03:04:05Z', AlertId: 'a1', Title: 'x' }]);
    expect(running.sentinel.dropped).toEqual([
      { row: { Title: 'no time' }, reason: "Column 'TimeGenerated' is required." },
    ]);
  });

  it('refuses a call over 1 MB, compressed or not, with 413', async () => {
    const auth = await bearer('https://monitor.azure.com');
    const big = JSON.stringify([{ TimeGenerated: '2026-01-02T03:04:05Z', Description: 'x'.repeat(1_100_000) }]);
    expect(await call(ingestPath, { headers: { ...auth, ...json }, body: big })).toMatchObject({ status: 413 });
    expect(
      await call(ingestPath, { headers: { ...auth, ...json, 'content-encoding': 'gzip' }, body: gzipSync(big) }),
    ).toMatchObject({ status: 413 });
  });

  it('answers 403 OperationFailed when the app lacks its role on the rule', async () => {
    await start({ sentinel: { deny: { ingestion: true } } });
    const auth = await bearer('https://monitor.azure.com');
    const answer = await call(ingestPath, { headers: { ...auth, ...json }, body: '[]' });
    expect(answer).toMatchObject({ status: 403, json: { error: { code: 'OperationFailed' } } });
    expect(answer.json.error.message).toMatch(/does not have access to ingest data for the data collection rule/);
  });
});

describe('Sentinel emulator: Log Analytics query', () => {
  it('runs KQL over the ingested rows within the time span, and refuses bad queries like Log Analytics', async () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const running = await start({ sentinel: { now: () => now } });
    running.sentinel.addRows([
      { TimeGenerated: '2026-02-27T00:00:00Z', Indicators: [{ type: 'ipv4', value: "it's" }] },
      { TimeGenerated: '2026-02-28T00:00:00Z', Indicators: [{ type: 'ipv4', value: "it's" }] },
      { TimeGenerated: '2025-01-01T00:00:00Z', Indicators: [{ type: 'ipv4', value: "it's" }] },
    ]);
    const auth = await bearer('https://api.loganalytics.io');
    const query = `${D.table} | mv-expand Indicator = Indicators | where tostring(Indicator.value) == 'it\\'s' | summarize First = min(TimeGenerated), Last = max(TimeGenerated), Events = count()`;
    const answer = await call(queryPath, {
      headers: { ...auth, ...json },
      body: JSON.stringify({ query, timespan: 'P30D' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json.tables[0]).toEqual({
      name: 'PrimaryResult',
      columns: [
        { name: 'First', type: 'datetime' },
        { name: 'Last', type: 'datetime' },
        { name: 'Events', type: 'long' },
      ],
      rows: [['2026-02-27T00:00:00.000Z', '2026-02-28T00:00:00.000Z', 2]],
    });

    const syntax = await call(queryPath, {
      headers: { ...auth, ...json },
      body: JSON.stringify({ query: `${D.table} | where x == 'open` }),
    });
    expect(syntax).toMatchObject({
      status: 400,
      json: { error: { code: 'BadArgumentError', innererror: { code: 'SyntaxError' } } },
    });
    const semantic = await call(queryPath, {
      headers: { ...auth, ...json },
      body: JSON.stringify({ query: 'NoSuchTable_CL | count' }),
    });
    expect(semantic).toMatchObject({ status: 400, json: { error: { innererror: { code: 'SemanticError' } } } });
  });

  it('answers 401 without a token and 403 InvalidTokenError for a token of another API', async () => {
    expect(await call(queryPath, { headers: json, body: '{"query": "x"}' })).toMatchObject({
      status: 401,
      json: { error: { code: 'AuthorizationRequiredError' } },
    });
    const arm = await bearer('https://management.azure.com');
    expect(await call(queryPath, { headers: { ...arm, ...json }, body: '{"query": "x"}' })).toMatchObject({
      status: 403,
      json: {
        error: { code: 'InvalidTokenError', message: 'The provided authentication is not valid for this resource' },
      },
    });
  });
});

describe('Sentinel emulator: incidents through ARM', () => {
  const incident = {
    properties: { title: 'Phishing', severity: 'High', status: 'New', owner: { email: 'a@example.com' } },
  };

  it('creates (201) then updates (200) an incident, numbering it once', async () => {
    const running = await start();
    const auth = await bearer('https://management.azure.com');
    const first = await call(incidentPath('abc'), {
      method: 'PUT',
      headers: { ...auth, ...json },
      body: JSON.stringify(incident),
    });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      name: 'abc',
      properties: { incidentNumber: 1, severity: 'High', owner: { email: 'a@example.com' } },
    });
    const again = await call(incidentPath('abc'), {
      method: 'PUT',
      headers: { ...auth, ...json },
      body: JSON.stringify(incident),
    });
    expect(again).toMatchObject({ status: 200, json: { properties: { incidentNumber: 1 } } });
    expect(running.sentinel.incidents.size).toBe(1);
  });

  it('refuses like ARM: token audience first, then api-version, then the body', async () => {
    const monitor = await bearer('https://monitor.azure.com');
    const audience = await call(incidentPath('abc'), { method: 'PUT', headers: { ...monitor, ...json }, body: 'x' });
    expect(audience).toMatchObject({ status: 401, json: { error: { code: 'InvalidAuthenticationTokenAudience' } } });
    expect(audience.headers['www-authenticate']).toMatch(/^Bearer authorization_uri=/);
    const auth = await bearer('https://management.azure.com');
    expect(
      await call(incidentPath('abc', '1999-01-01'), { method: 'PUT', headers: { ...auth, ...json }, body: 'x' }),
    ).toMatchObject({
      status: 400,
      json: { error: { code: 'InvalidApiVersionParameter' } },
    });
    expect(await call(incidentPath('abc'), { method: 'PUT', headers: { ...auth, ...json }, body: 'x' })).toMatchObject({
      status: 400,
      json: { error: { code: 'InvalidRequestContent' } },
    });
    const critical = { properties: { ...incident.properties, severity: 'Critical' } };
    expect(
      await call(incidentPath('abc'), { method: 'PUT', headers: { ...auth, ...json }, body: JSON.stringify(critical) }),
    ).toMatchObject({ status: 400, json: { error: { code: 'BadRequest' } } });
    expect(
      await call(incidentPath('abc').replace(D.resourceGroup, 'rg-other'), {
        method: 'PUT',
        headers: { ...auth, ...json },
        body: '{}',
      }),
    ).toMatchObject({ status: 404, json: { error: { code: 'ResourceGroupNotFound' } } });
  });
});
