// The Authorization header as RFC 9110 §11.4 writes it (`auth-scheme 1*SP credentials`), one of it per request, and
// no answer that repeats what a request's headers carried.
import { afterEach, describe, expect, it } from 'vitest';
import type { APIServer } from '../api-server.js';
import { offlineClient, requestFrom, startServer, TOKEN } from '../http/raw-http.test-suite.js';
import { hashPassword } from './password-hash.js';

const running: APIServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function serve(...args: Parameters<typeof startServer>) {
  const started = await startServer(...args);
  running.push(started.server);
  return started;
}

const status = async (base: string, authorization: string | string[]) =>
  (await requestFrom('127.0.0.1', `${base}/api/v1/feeds/status`, { headers: { authorization } })).status;

describe('the Authorization header (RFC 9110 §11.4: a scheme, one or more spaces, the credentials)', () => {
  it.each([
    ['one space', `Bearer ${TOKEN}`, 200],
    ['two spaces', `Bearer  ${TOKEN}`, 200],
    ['the scheme in another case', `bEARER ${TOKEN}`, 200],
    ['a tab instead of the space', `Bearer\t${TOKEN}`, 401],
    ['a space then a tab', `Bearer \t${TOKEN}`, 401],
    ['a tab then a space', `Bearer\t ${TOKEN}`, 401],
    ['credentials followed by more text', `Bearer ${TOKEN} x`, 401],
    ['the scheme alone', 'Bearer', 401],
    ['the token alone', TOKEN, 401],
  ])('%s (%j) answers %i', async (_name, header, expected) => {
    const { base } = await serve();
    expect(await status(base, header)).toBe(expected);
  });

  it('says what is wrong with a tab between scheme and credentials, without repeating them', async () => {
    const { base } = await serve();
    const answer = await requestFrom('127.0.0.1', `${base}/api/v1/feeds/status`, {
      headers: { authorization: `Bearer\t${TOKEN}` },
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).detail).toMatch(/one or more spaces/);
    expect(answer.body).not.toContain(TOKEN);
  });

  it('refuses two Authorization headers (400 problem), even when both carry the valid token', async () => {
    const { base } = await serve();
    for (const pair of [
      [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`],
      [`Bearer ${TOKEN}`, 'Bearer wrong'],
      ['Bearer wrong', `Bearer ${TOKEN}`],
    ]) {
      const answer = await requestFrom('127.0.0.1', `${base}/api/v1/feeds/status`, {
        headers: { authorization: pair },
      });
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.body)).toMatchObject({
        type: 'https://threatlib.dev/problems/malformed-request',
        detail: expect.stringMatching(/one Authorization header/),
      });
      expect(answer.body).not.toContain(TOKEN);
    }
  });
});

describe('no answer repeats a header', () => {
  const SECRET = 'Secret-Marker-7f3a9c41';
  const found = (answer: { body: string; headers: Record<string, unknown> }) => {
    const text = `${answer.body}\n${JSON.stringify(answer.headers)}`.toLowerCase();
    const forms = [SECRET, Buffer.from(SECRET).toString('base64'), encodeURIComponent(SECRET)];
    return forms.filter((form) => text.includes(form.toLowerCase()));
  };
  const authorizations = [
    `${SECRET} x`,
    `${SECRET}`,
    `${SECRET}\tx`,
    `Bearer ${SECRET}`,
    `Bearer ${SECRET} x`,
    `Bearer\t${SECRET}`,
    `Bearer ${TOKEN}${SECRET}`,
    `Basic ${SECRET}`,
    `Basic ${Buffer.from(`${SECRET}:${SECRET}`).toString('base64')}`,
    `Basic ${Buffer.from(SECRET).toString('base64')}`,
    `Digest username="${SECRET}", realm="x"`,
    `Bearer ${SECRET}.${SECRET}.${SECRET}`,
    `Bearer eyJhbGciOiJIUzI1NiJ9.${Buffer.from(`{"sub":"${SECRET}"}`).toString('base64url')}.AAAA`,
    `Bearer ${Buffer.from(`{"alg":"${SECRET}"}`).toString('base64url')}.e30.AAAA`,
  ];
  const contentTypes = [
    `${SECRET}`,
    `text/${SECRET}`,
    `application/${SECRET}`,
    `application/jsonx${SECRET}`,
    `application/json; charset=${SECRET}`,
    `application/json; ${SECRET}`,
    `multipart/form-data; boundary=${SECRET}`,
    `application/x-www-form-urlencoded; ${SECRET}`,
    `${SECRET}/json`,
  ];

  it.each([
    ['bearer tokens and HS256 JWTs', { type: 'jwt', secret: 'a-long-shared-secret-for-hs256-tests' }],
    ['bearer tokens and basic users', { type: 'basic', users: { analyst: 'placeholder' } }],
  ] as const)('with %s: a sweep of malformed Authorization and Content-Type headers', async (_name, authentication) => {
    const config =
      authentication.type === 'basic'
        ? { ...authentication, users: { analyst: await hashPassword('correct horse', { ln: 10, r: 8, p: 1 }) } }
        : authentication;
    // Every refused attempt counts toward the address's failure limit; this sweep is about what the answers say.
    const { base } = await serve(
      { authFailureLimit: { max: 1_000 } },
      offlineClient({ security: { enforceHttps: false, authentication: config } }),
    );
    const refusals = [];
    for (const authorization of authorizations) {
      for (const path of ['/api/v1/feeds/status', '/api/v1/threats/scan']) {
        const post = path.endsWith('scan');
        refusals.push(
          await requestFrom('127.0.0.1', `${base}${path}`, {
            method: post ? 'POST' : 'GET',
            headers: { authorization, ...(post ? { 'content-type': 'application/json' } : {}) },
            ...(post ? { body: '{"indicator":"1.2.3.4"}' } : {}),
          }),
        );
      }
    }
    const others = [];
    for (const contentType of contentTypes) {
      others.push(
        await requestFrom('127.0.0.1', `${base}/api/v1/threats/scan`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
          body: '{"indicator":"1.2.3.4"}',
        }),
      );
    }
    // Every malformed Authorization was refused; a JSON type with an unknown parameter is still JSON. No answer
    // says what it was sent.
    expect(refusals.filter((answer) => answer.status < 400)).toEqual([]);
    expect(others.filter((answer) => answer.status >= 400).length).toBeGreaterThanOrEqual(contentTypes.length - 2);
    for (const answer of [...refusals, ...others]) expect(found(answer), answer.body).toEqual([]);
  });
});
