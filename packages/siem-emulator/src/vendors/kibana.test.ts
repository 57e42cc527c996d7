import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSiemEmulator, startSiemEmulator } from '../siem-emulator.js';
import { KIBANA_DEFAULTS, type KibanaEmulatorOptions } from './kibana.js';

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
const auth = basic(KIBANA_DEFAULTS.username, KIBANA_DEFAULTS.password);
const json = { 'content-type': 'application/json' };
const xsrf = { 'kbn-xsrf': 'true' };

/** A body Kibana accepts. */
const valid = {
  title: 'Phishing campaign',
  description: 'Credential harvesting',
  tags: ['threatlib'],
  severity: 'critical',
  owner: 'securitySolution',
  connector: { id: 'none', name: 'none', type: '.none', fields: null },
  settings: { syncAlerts: false },
};

let emulator: RunningSiemEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  kibana?: KibanaEmulatorOptions,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  emulator ??= await startSiemEmulator({ tls: false, ...(kibana ? { kibana } : {}) });
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const response = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'POST',
    headers: init.headers ?? {},
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

const boom = (statusCode: number, error: string, message: string) => ({
  status: statusCode,
  json: { statusCode, error, message },
});

describe('Kibana emulator: authentication first', () => {
  it('refuses a request without credentials, with wrong ones, or with an unknown API key, as Kibana does', async () => {
    expect(await call('/api/cases', { body: 'not json' })).toMatchObject(boom(401, 'Unauthorized', 'Unauthorized'));
    const wrong = await call('/api/cases', { headers: basic('elastic', 'nope'), body: 'not json' });
    expect(wrong).toMatchObject({ status: 401 });
    expect(wrong.json.message).toBe(
      '[security_exception\n\tRoot causes:\n\t\tsecurity_exception: unable to authenticate user [elastic] for REST request [/_security/_authenticate]]: unable to authenticate user [elastic] for REST request [/_security/_authenticate]',
    );
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic realm="kibana"/);
    const key = await call('/api/status', { method: 'GET', headers: { authorization: 'ApiKey bm9wZTpub3Bl' } });
    expect(key.status).toBe(401);
    expect(String(key.json.message)).toMatch(/unable to authenticate with provided credentials/);
  });

  it('accepts an API key it knows', async () => {
    const answer = await call('/api/status', {
      method: 'GET',
      headers: { authorization: `ApiKey ${KIBANA_DEFAULTS.apiKey}` },
    });
    expect(answer.status).toBe(200);
  });
});

describe('Kibana emulator: then headers, then the body', () => {
  it('a POST without kbn-xsrf is refused with 400, whatever its body', async () => {
    expect(await call('/api/cases', { headers: { ...auth, ...json }, body: valid })).toMatchObject(
      boom(400, 'Bad Request', 'Request must contain a kbn-xsrf header.'),
    );
  });

  it('a body that is not JSON, or not declared as JSON, is refused', async () => {
    expect(await call('/api/cases', { headers: { ...auth, ...xsrf, ...json }, body: '{oops' })).toMatchObject(
      boom(400, 'Bad Request', 'Invalid request payload JSON format'),
    );
    expect(
      await call('/api/cases', { headers: { ...auth, ...xsrf, 'content-type': 'text/plain' }, body: valid }),
    ).toMatchObject(boom(415, 'Unsupported Media Type', 'Unsupported Media Type'));
  });

  it.each([
    [{ title: undefined }, 'Invalid value "undefined" supplied to "title"'],
    [{ title: '   ' }, 'The title field cannot be an empty string.'],
    [{ title: 'x'.repeat(161) }, 'The length of the title is too long. The maximum length is 160.'],
    [{ description: '' }, 'The description field cannot be an empty string.'],
    [{ tags: Array(201).fill('t') }, 'The length of the field tags is too long. Array must be of length <= 200.'],
    [{ tags: ['x'.repeat(257)] }, 'The length of the tag is too long. The maximum length is 256.'],
    [{ severity: 'urgent' }, 'Invalid value "urgent" supplied to "severity"'],
    [
      { connector: { id: 'none', name: 'none', type: '.none', fields: {} } },
      'Invalid value {} supplied to "connector,fields"',
    ],
    [{ settings: {} }, 'Invalid value "undefined" supplied to "settings,syncAlerts"'],
    [{ foo: 'bar' }, 'invalid keys "foo"'],
    [
      { assignees: Array(11).fill({ uid: 'u' }) },
      'The length of the field assignees is too long. Array must be of length <= 10.',
    ],
  ])('refuses %j with Kibana’s message', async (change, message) => {
    const answer = await call('/api/cases', { headers: { ...auth, ...xsrf, ...json }, body: { ...valid, ...change } });
    expect(answer).toMatchObject(boom(400, 'Bad Request', `Failed to create case: Error: ${message}`));
    expect(emulator?.kibana.cases).toEqual([]);
  });

  it('refuses an owner the user has no privileges for with 403', async () => {
    const answer = await call('/api/cases', { headers: { ...auth, ...xsrf, ...json }, body: { ...valid, owner: 'x' } });
    expect(answer).toMatchObject(boom(403, 'Forbidden', 'Unauthorized to create case with owners: "x"'));
  });

  it('refuses assignees without a Platinum licence', async () => {
    const answer = await call(
      '/api/cases',
      { headers: { ...auth, ...xsrf, ...json }, body: { ...valid, assignees: [{ uid: 'u_1' }] } },
      { license: 'basic' },
    );
    expect(answer.status).toBe(403);
    expect(answer.json.message).toMatch(/must be subscribed to an Elastic Platinum license/);
  });
});

describe('Kibana emulator: cases and status', () => {
  it('creates a case, answers its id, and serves it back in its space only', async () => {
    const created = await call(
      '/s/soc/api/cases',
      { headers: { ...auth, ...xsrf, ...json }, body: valid },
      { spaces: ['soc'] },
    );
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ title: valid.title, severity: 'critical', status: 'open', totalComment: 0 });
    const id = String(created.json.id);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(`/s/soc/api/cases/${id}`, { method: 'GET', headers: auth })).json).toMatchObject({ id });
    expect((await call(`/api/cases/${id}`, { method: 'GET', headers: auth })).status).toBe(404);
    expect(await call('/s/nowhere/api/cases', { headers: { ...auth, ...xsrf, ...json }, body: valid })).toMatchObject(
      boom(404, 'Not Found', 'Not Found'),
    );
    expect(emulator?.kibana.cases.map((c) => [c.space, c.created_by.username])).toEqual([['soc', 'elastic']]);
  });

  it('reports its status, 503 when unavailable', async () => {
    const up = await call('/api/status', { method: 'GET', headers: auth });
    expect(up).toMatchObject({
      status: 200,
      json: { version: { number: '8.19.0' }, status: { overall: { level: 'available' } } },
    });
    if (emulator) emulator.kibana.statusLevel = 'unavailable';
    expect((await call('/api/status', { method: 'GET', headers: auth })).status).toBe(503);
  });

  it('answers injected busy faults with Boom’s 503, with Retry-After when set', async () => {
    emulator = await startSiemEmulator({ tls: false });
    emulator.kibana.busyRetryAfter = 2;
    emulator.failNext(1, 'busy', 'kibana');
    const busy = await call('/api/status', { method: 'GET', headers: auth });
    expect(busy).toMatchObject(boom(503, 'Service Unavailable', 'Service Unavailable'));
    expect(busy.headers.get('retry-after')).toBe('2');
  });
});
