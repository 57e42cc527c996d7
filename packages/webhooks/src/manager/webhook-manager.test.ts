import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, type Logger, ValidationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookOutbox } from '../outgoing/outbox/outbox.js';
import type { WebhookManagerOptions } from './manager-options.js';
import { WebhookManager, type WebhookManagerRuntime } from './webhook-manager.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = Date.parse('2026-03-01T12:00:00Z');
const running: WebhookManager[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((manager) => manager.stop()));
});

interface LogLine {
  level: string;
  obj: object;
  msg: string | undefined;
}

function recordingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, obj, msg });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function started(options: Partial<WebhookManagerOptions> = {}, runtime: WebhookManagerRuntime = {}) {
  const clock = new ManualClock(NOW);
  const manager = new WebhookManager(
    { server: { port: 0, path: '/webhooks' }, authentication: { type: 'hmac', secret: SECRET }, ...options },
    { clock, ...runtime },
  );
  running.push(manager);
  await manager.start();
  return { manager, clock, base: manager.address as string };
}

let ids = 0;
/** A request signed by the Standard Webhooks reference library. */
function signed(
  payload: unknown,
  { secret = SECRET, at = NOW, id = `msg_${++ids}` }: { secret?: string; at?: number; id?: string } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = new Webhook(secret).sign(id, new Date(at), body);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at / 1000)),
      'webhook-signature': signature,
    } as Record<string, string>,
  };
}

function post(base: string, path: string, request: { body: string; headers: Record<string, string> }) {
  return fetch(`${base}${path}`, { method: 'POST', headers: request.headers, body: request.body });
}

const update = (indicator = 'evil.example') => ({
  type: 'threat-update',
  timestamp: new Date(NOW).toISOString(),
  data: { indicator },
});

describe('WebhookManager receiving (Standard Webhooks)', () => {
  it('runs the handler of the payload’s type with its data for a request the reference library signed: 204', async () => {
    const { manager, base } = await started();
    const seen: unknown[] = [];
    manager.on('threat-update', async (data) => {
      seen.push(data);
    });
    const response = await post(base, '/webhooks', signed(update('evil.example')));
    expect(response.status).toBe(204);
    expect(seen).toEqual([{ indicator: 'evil.example' }]);
    expect(manager.stats).toMatchObject({ handled: 1, unauthorized: 0 });
  });

  it('takes the event from the path: <path>/<eventName>, with a bare payload or an envelope that agrees', async () => {
    const { manager, base } = await started();
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => {
      seen.push(data);
    });
    expect((await post(base, '/webhooks/threat-update', signed({ indicator: 'a.example' }))).status).toBe(204);
    expect((await post(base, '/webhooks/threat-update', signed(update('b.example')))).status).toBe(204);
    expect(seen).toEqual([{ indicator: 'a.example' }, { indicator: 'b.example' }]);
    const mismatch = await post(base, '/webhooks/other-event', signed(update('c.example')));
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { detail: string }).detail).toBe(
      'the path names the event "other-event" but the payload\'s type is "threat-update"',
    );
  });

  it('accepts a plain secret as its UTF-8 bytes (the reference library’s format "raw")', async () => {
    // Made of base64 characters, so the library could read it either way.
    const plain = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const { manager, base } = await started({ authentication: { type: 'hmac', secret: plain } });
    manager.on('threat-update', () => {});
    const body = JSON.stringify(update());
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_plain',
      'webhook-timestamp': String(NOW / 1000),
      'webhook-signature': new Webhook(plain, { format: 'raw' }).sign('msg_plain', new Date(NOW), body),
    };
    expect((await post(base, '/webhooks', { body, headers })).status).toBe(204);
    // The same secret read as base64 (what the library does without "raw") is another key: refused.
    const wrong = { ...headers, 'webhook-id': 'msg_b64' };
    wrong['webhook-signature'] = new Webhook(plain).sign('msg_b64', new Date(NOW), body);
    expect((await post(base, '/webhooks', { body, headers: wrong })).status).toBe(401);
  });

  it('refuses tampered bodies, wrong secrets, old and future timestamps and bad headers with one 401, running nothing', async () => {
    const lines: LogLine[] = [];
    // Twelve refusals from one address: more than the failed-signature limit lets through (tested on its own).
    const { manager, base, clock } = await started(
      { server: { port: 0, path: '/webhooks', failedSignatureLimit: { max: 100 } } },
      { logger: recordingLogger(lines) },
    );
    let runs = 0;
    manager.on('threat-update', () => {
      runs++;
    });
    const good = signed(update());
    const wrongSecret = signed(update(), { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` });
    const attempts = [
      { ...good, body: good.body.replace('evil', 'good') },
      { ...good, body: `${good.body} ` },
      wrongSecret,
      signed(update(), { at: NOW - 301_000 }),
      signed(update(), { at: NOW + 301_000 }),
      { ...good, headers: { ...good.headers, 'webhook-timestamp': String(NOW / 1000 + 1) } },
      { ...good, headers: { ...good.headers, 'webhook-id': `${good.id}x` } },
      { ...good, headers: { ...good.headers, 'webhook-signature': 'v1,' } },
      { ...good, headers: { ...good.headers, 'webhook-signature': good.headers['webhook-signature']?.slice(0, 30) } },
      { ...good, headers: { 'content-type': 'application/json' } },
      { ...good, headers: { ...good.headers, 'webhook-timestamp': 'yesterday' } },
    ] as Array<{ body: string; headers: Record<string, string> }>;
    const answers = [];
    for (const attempt of attempts) {
      const response = await post(base, '/webhooks', attempt);
      answers.push({ status: response.status, body: await response.json() });
    }
    expect(runs).toBe(0);
    // Every refusal is the same answer: nothing says which part failed.
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
      new Set([
        JSON.stringify({
          status: 401,
          body: {
            type: 'https://threatlib.dev/problems/unauthorized',
            title: 'Unauthorized',
            status: 401,
            detail: 'the request is not signed as this endpoint requires',
            instance: '/webhooks',
          },
        }),
      ]),
    );
    expect(manager.stats.unauthorized).toBe(attempts.length);
    // One log line a minute, with the reason, never the secret or a signature.
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    await clock.advance(60_000);
    const late = signed(update(), { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`, at: NOW + 60_000 });
    expect((await post(base, '/webhooks', late)).status).toBe(401);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(2);
    // The line counts every refusal since the previous line: the ten after it, and this one.
    expect(warnings[1]?.obj).toMatchObject({ refused: 11, reason: 'no v1 signature matched a secret' });
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(logged).not.toContain(good.headers['webhook-signature']?.slice(3, 20));
    // And the real one still gets through.
    expect((await post(base, '/webhooks', good)).status).toBe(204);
  });

  it('answers a replayed webhook-id 204 without running the handler again, until its timestamp is out of tolerance', async () => {
    const { manager, base, clock } = await started();
    let runs = 0;
    manager.on('threat-update', () => {
      runs++;
    });
    const request = signed(update());
    expect((await post(base, '/webhooks', request)).status).toBe(204);
    for (let i = 0; i < 3; i++) expect((await post(base, '/webhooks', request)).status).toBe(204);
    // Concurrent replays of a message under way share its single run.
    const concurrent = signed(update());
    const answers = await Promise.all([1, 2, 3, 4].map(() => post(base, '/webhooks', concurrent)));
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204]);
    expect(runs).toBe(2);
    expect(manager.stats).toMatchObject({ handled: 2, replayed: 6 });
    await clock.advance(301_000);
    expect((await post(base, '/webhooks', request)).status).toBe(401);
    expect(runs).toBe(2);
  });

  it('answers 500 when a handler throws (the sender retries), logs it without the secret, and runs the retry', async () => {
    const lines: LogLine[] = [];
    const { manager, base } = await started({}, { logger: recordingLogger(lines) });
    let calls = 0;
    manager.on('threat-update', async () => {
      calls++;
      if (calls === 1) throw new Error('database unavailable');
    });
    const request = signed(update());
    const first = await post(base, '/webhooks', request);
    expect(first.status).toBe(500);
    expect(await first.json()).toMatchObject({
      type: 'https://threatlib.dev/problems/webhook-handler-failed',
      detail: 'the handler of "threat-update" failed; retry later',
    });
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toContain('"threat-update" failed');
    expect(errors[0]?.obj).toMatchObject({ event: 'threat-update', messageId: request.id });
    expect(JSON.stringify(lines)).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    // The retry (same id) is not a replay of a success: it runs, and succeeds.
    expect((await post(base, '/webhooks', request)).status).toBe(204);
    expect(calls).toBe(2);
  });

  it('answers 400 when a handler refuses the data with a ValidationError (no retry can help)', async () => {
    const { manager, base } = await started();
    manager.on('threat-update', () => {
      throw new ValidationError('threat-update data', [{ path: 'indicator', message: 'required' }]);
    });
    const response = await post(base, '/webhooks', signed(update()));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toContain('indicator: required');
  });

  it('runs every handler of an event in order; an unknown event is 404, a payload naming none is 400', async () => {
    const { manager, base } = await started();
    const order: string[] = [];
    manager.on('threat-update', () => order.push('first')).on('threat-update', () => order.push('second'));
    expect((await post(base, '/webhooks', signed(update()))).status).toBe(204);
    expect(order).toEqual(['first', 'second']);
    const unknown = await post(base, '/webhooks', signed({ type: 'campaign-detected', data: {} }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      detail: 'no handler is registered for the event "campaign-detected"',
    });
    expect((await post(base, '/webhooks/no-such-event', signed({ indicator: 'x' }))).status).toBe(404);
    const none = await post(base, '/webhooks', signed({ indicator: 'x' }));
    expect(none.status).toBe(400);
    expect(((await none.json()) as { detail: string }).detail).toContain('the payload names no event');
  });

  it('refuses what is not a JSON body of the allowed size with 4xx problems, once its headers carry a signature', async () => {
    const { manager, base } = await started({ limits: { bodyBytes: 1024, jsonDepth: 8 } });
    manager.on('threat-update', () => {});
    const problem = async (response: Response) => ({ status: response.status, body: await response.json() });

    const text = signed(update());
    const asText = await post(base, '/webhooks', {
      ...text,
      headers: { ...text.headers, 'content-type': 'text/plain' },
    });
    expect(await problem(asText)).toMatchObject({
      status: 415,
      body: { detail: 'send the payload as application/json' },
    });
    const form = await post(base, '/webhooks', {
      ...text,
      headers: { ...text.headers, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    // No signature headers at all: refused for that before anything else is looked at.
    expect((await fetch(`${base}/webhooks`, { method: 'POST' })).status).toBe(401);
    // An empty JSON body is a body: signed, it is refused as a payload; signed for another body, as a signature.
    expect((await post(base, '/webhooks', signed(''))).status).toBe(400);
    expect((await post(base, '/webhooks', { ...text, body: '' })).status).toBe(401);
    const vendorJson = signed(update());
    vendorJson.headers['content-type'] = 'application/vnd.acme+json; charset=utf-8';
    expect((await post(base, '/webhooks', vendorJson)).status).toBe(204);

    const large = signed({ type: 'threat-update', data: { indicator: 'x', pad: 'x'.repeat(2000) } });
    expect(await problem(await post(base, '/webhooks', large))).toMatchObject({
      status: 413,
      body: { type: 'https://threatlib.dev/problems/payload-too-large', detail: 'the body is larger than 1024 bytes' },
    });
    expect(await problem(await post(base, '/webhooks', signed('{"type": "threat-update", "data": ')))).toMatchObject({
      status: 400,
      body: { type: 'https://threatlib.dev/problems/malformed-json', detail: 'the request body is not valid JSON' },
    });
    const deep = signed(`{"type":"threat-update","data":${'['.repeat(10)}${']'.repeat(10)}}`);
    expect(await problem(await post(base, '/webhooks', deep))).toMatchObject({
      status: 400,
      body: { detail: 'the payload is nested deeper than 8 levels of arrays and objects' },
    });
    const proto = signed('{"type":"threat-update","data":{"__proto__":{"isAdmin":true}}}');
    expect((await post(base, '/webhooks', proto)).status).toBe(400);
    // Unsigned garbage is refused for its signature before it is parsed.
    expect(
      (await post(base, '/webhooks', { body: '{{{', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(401);
  });

  it('hardens every answer like the REST server, and answers other methods and paths with problems', async () => {
    const { manager, base } = await started();
    manager.on('threat-update', () => {});
    const answers = [
      await post(base, '/webhooks', signed(update())),
      await post(base, '/webhooks', { body: '{}', headers: { 'content-type': 'application/json' } }),
      await fetch(`${base}/webhooks`),
      await fetch(`${base}/elsewhere`, { method: 'POST' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([204, 401, 405, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(answers[2]?.headers.get('allow')).toBe('POST');
  });
});

describe('WebhookManager receiving: one signed message runs the handlers of one event', () => {
  const strict = (data: unknown) => {
    if (typeof (data as { indicator?: unknown } | null)?.indicator !== 'string') {
      throw new ValidationError('a data', [{ path: 'indicator', message: 'required' }]);
    }
  };

  it('refuses the same signed message on another path (409) after it was refused as input there (400)', async () => {
    const { manager, base } = await started();
    const runs: string[] = [];
    manager.on('a', (data) => {
      runs.push('a');
      strict(data);
    });
    manager.on('b', () => void runs.push('b'));
    // Signed, not an envelope: the event comes from the path, which the signature does not cover.
    const request = signed({ host: 'evil.example' });
    const first = await post(base, '/webhooks/a', request);
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ detail: 'Invalid a data: indicator: required' });
    const swapped = await post(base, '/webhooks/b', request);
    expect(swapped.status).toBe(409);
    expect(runs).toEqual(['a']);
    // The sender's retry on its own path is still handled (and refused the same way).
    expect((await post(base, '/webhooks/a', request)).status).toBe(400);
    expect(runs).toEqual(['a', 'a']);
    expect(manager.stats).toMatchObject({ handled: 0, rejected: 3, failed: 0 });
  });

  it('refuses it on another path after its handler failed (500), and runs the retry on the same path', async () => {
    const { manager, base } = await started();
    const runs: string[] = [];
    let failing = true;
    manager.on('a', () => {
      runs.push('a');
      if (failing) throw new Error('database unavailable');
    });
    manager.on('b', () => void runs.push('b'));
    const request = signed({ indicator: 'evil.example' });
    expect((await post(base, '/webhooks/a', request)).status).toBe(500);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    failing = false;
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    expect(runs).toEqual(['a', 'a']);
  });

  it('remembers the event for the tolerance window; a message that reached no event is bound to none', async () => {
    const { manager, base, clock } = await started();
    const runs: string[] = [];
    manager.on('a', () => void runs.push('a'));
    manager.on('b', () => void runs.push('b'));
    const request = signed({ indicator: 'evil.example' });
    // No event named, or an event with no handler: nothing ran, so the message may still go where it was meant for.
    expect((await post(base, '/webhooks', request)).status).toBe(400);
    expect((await post(base, '/webhooks/A', request)).status).toBe(404);
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    await clock.advance(299_000);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    // Past the tolerance the signature itself is refused.
    await clock.advance(2_000);
    expect((await post(base, '/webhooks/b', request)).status).toBe(401);
    expect(runs).toEqual(['a']);
  });

  it('serves only the paths server.pathEvents binds, each delivering its event', async () => {
    const { manager, base } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { intel: 'threat-update' } },
    });
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => void seen.push(data));
    manager.on('block-ip', () => void seen.push('block-ip'));
    expect((await post(base, '/webhooks/intel', signed({ indicator: 'a.example' }))).status).toBe(204);
    expect((await post(base, '/webhooks/intel', signed(update('b.example')))).status).toBe(204);
    const other = await post(base, '/webhooks/block-ip', signed({ indicator: 'c.example' }));
    expect(other.status).toBe(404);
    expect(((await other.json()) as { detail: string }).detail).toBe(
      'no event is bound to this path (server.pathEvents lists the paths served)',
    );
    expect((await post(base, '/webhooks/intel', signed({ type: 'block-ip', data: {} }))).status).toBe(400);
    // The envelope on the bare path still names its own (signed) event.
    expect((await post(base, '/webhooks', signed(update('d.example')))).status).toBe(204);
    expect(seen).toEqual([{ indicator: 'a.example' }, { indicator: 'b.example' }, { indicator: 'd.example' }]);
  });

  it('checks the documented data of threat-update before any handler runs: an indicator string (400 otherwise)', async () => {
    const { manager, base } = await started();
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => void seen.push(data.indicator));
    const problem = async (payload: unknown) => {
      const response = await post(base, '/webhooks', signed(payload));
      return { status: response.status, detail: ((await response.json()) as { detail: string }).detail };
    };
    expect(await problem({ type: 'threat-update', data: { host: 'evil.example' } })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: indicator: required: the indicator (a string); got nothing',
    });
    expect(await problem({ type: 'threat-update', data: { indicator: 42 } })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: indicator: required: the indicator (a string); got a number',
    });
    expect(await problem({ type: 'threat-update', data: 'evil.example' })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: (root): expected an object with an indicator; got a string',
    });
    expect(seen).toEqual([]);
    expect((await post(base, '/webhooks', signed(update('evil.example')))).status).toBe(204);
    expect(seen).toEqual(['evil.example']);
  });
});

describe('WebhookManager receiving (GitHub)', () => {
  const secret = "It's a Secret to Everybody";
  const github = (body: string, headers: Record<string, string | undefined> = {}) => ({
    body,
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        ...headers,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  });
  const counting = (manager: WebhookManager, ...events: string[]) => {
    const runs: Record<string, unknown[]> = Object.fromEntries(events.map((event) => [event, []]));
    for (const event of events) manager.on(event, (data) => void runs[event]?.push(data));
    return runs;
  };

  it('runs one body signed once at most once, whatever X-GitHub-Delivery says, and requires the header', async () => {
    const { manager, base } = await started({ authentication: { type: 'hmac', secret, scheme: 'github' } });
    const runs = counting(manager, 'push');
    const body = '{"type": "push", "data": {"ref": "refs/heads/main"}}';
    expect((await post(base, '/webhooks', github(body))).status).toBe(204);
    // A changed delivery id is no new message: the key is a digest of what is signed, the body.
    expect((await post(base, '/webhooks', github(body, { 'x-github-delivery': 'another-guid' }))).status).toBe(204);
    expect((await post(base, '/webhooks', github(body, { 'x-github-delivery': 'a-third-guid' }))).status).toBe(204);
    // A removed one is refused, before the body is read, saying what is missing.
    const missing = await post(base, '/webhooks', github(body, { 'x-github-delivery': undefined }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      type: 'https://threatlib.dev/problems/malformed-request',
      detail: 'X-GitHub-Delivery is required (GitHub sends the delivery GUID) and is missing',
    });
    const odd = await post(base, '/webhooks', github(body, { 'x-github-delivery': 'two words' }));
    expect(odd.status).toBe(400);
    expect(runs.push).toEqual([{ ref: 'refs/heads/main' }]);
    expect(manager.stats).toMatchObject({ handled: 1, replayed: 2, rejected: 2, unauthorized: 0 });
  });

  it('never takes the event from X-GitHub-Event or from the path, which GitHub does not sign', async () => {
    const { manager, base } = await started({ authentication: { type: 'hmac', secret, scheme: 'github' } });
    const runs = counting(manager, 'push', 'block-ip', 'threat-update');
    const bare = '{"indicator": "198.51.100.7"}';
    const header = await post(base, '/webhooks', github(bare, { 'x-github-event': 'block-ip' }));
    expect(header.status).toBe(400);
    expect(((await header.json()) as { detail: string }).detail).toContain(
      'GitHub signs neither the path nor X-GitHub-Event',
    );
    const path = await post(base, '/webhooks/threat-update', github(bare, { 'x-github-event': 'threat-update' }));
    expect(path.status).toBe(400);
    expect(((await path.json()) as { detail: string }).detail).toContain('server.pathEvents');
    // A signed envelope names its own event; the header does not override it.
    const envelope = '{"type": "push", "data": {"indicator": "198.51.100.7"}}';
    expect((await post(base, '/webhooks', github(envelope, { 'x-github-event': 'block-ip' }))).status).toBe(204);
    expect((await post(base, '/webhooks/block-ip', github(envelope, { 'x-github-event': 'block-ip' }))).status).toBe(
      400,
    );
    expect(runs).toEqual({ push: [{ indicator: '198.51.100.7' }], 'block-ip': [], 'threat-update': [] });
  });

  it('delivers the event server.pathEvents binds to a path: GitHub payloads as they are sent', async () => {
    const { manager, base } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'threat-update', 'github-push': 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github' },
    });
    const runs = counting(manager, 'push', 'block-ip', 'threat-update');
    const body = '{"indicator": "evil.example"}';
    const headers = { 'x-github-event': 'block-ip' };
    expect((await post(base, '/webhooks/github', github(body, headers))).status).toBe(204);
    // The same signed body on another bound path, or a path not listed, runs nothing.
    const other = await post(base, '/webhooks/github-push', github(body, headers));
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({
      type: 'https://threatlib.dev/problems/webhook-message-conflict',
      detail:
        'this signed message was received before for another event, so it cannot run the handlers of "push": one message runs the handlers of one event',
    });
    expect((await post(base, '/webhooks/block-ip', github(body, headers))).status).toBe(404);
    expect((await post(base, '/webhooks', github(body, headers))).status).toBe(400);
    expect(runs).toEqual({ push: [], 'block-ip': [], 'threat-update': [{ indicator: 'evil.example' }] });
    // Tampered, it is refused for its signature.
    expect((await post(base, '/webhooks/github', { ...github(body), body: body.replace('evil', 'good') })).status).toBe(
      401,
    );
    // GitHub's documented example verifies: "Hello, World!" is then refused as a payload (400), not a signature.
    const example = await post(base, '/webhooks/github', {
      body: 'Hello, World!',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      },
    });
    expect(example.status).toBe(400);
  });

  it('remembers a body for authentication.replayWindowSeconds (default a day), then runs it again', async () => {
    const { manager, base, clock } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github', replayWindowSeconds: 3_600 },
    });
    const runs = counting(manager, 'push');
    const body = '{"ref": "refs/heads/main"}';
    expect((await post(base, '/webhooks/github', github(body))).status).toBe(204);
    await clock.advance(3_599_000);
    expect((await post(base, '/webhooks/github', github(body, { 'x-github-delivery': 'redelivered' }))).status).toBe(
      204,
    );
    expect(runs.push).toHaveLength(1);
    await clock.advance(2_000);
    expect((await post(base, '/webhooks/github', github(body))).status).toBe(204);
    expect(runs.push).toHaveLength(2);

    const byDefault = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github' },
    });
    const defaultRuns = counting(byDefault.manager, 'push');
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    await byDefault.clock.advance(86_399_000);
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    expect(defaultRuns.push).toHaveLength(1);
    await byDefault.clock.advance(2_000);
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    expect(defaultRuns.push).toHaveLength(2);
  });
});

describe('WebhookManager options', () => {
  it('refuses a short secret, a missing authentication and a bad path, naming each without quoting the secret', () => {
    const attempt = (options: unknown) => {
      try {
        new WebhookManager(options as WebhookManagerOptions);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const short = attempt({ authentication: { type: 'hmac', secret: 'tiny-secret' } });
    expect(ConfigurationError.isInstance(short)).toBe(true);
    expect((short as Error).message).toBe(
      'Configuration invalid: webhooks.authentication.secret: the secret has 11 bytes; use at least 16 (a "whsec_" secret counts its decoded bytes)',
    );
    expect((attempt({ server: { port: 0 } }) as Error).message).toBe(
      'Configuration invalid: webhooks.authentication: required to receive webhooks on server.port: {type: "hmac", secret}',
    );
    expect(
      (attempt({ server: { path: 'hooks' }, authentication: { type: 'hmac', secret: SECRET } }) as Error).message,
    ).toBe('Configuration invalid: webhooks.server.path: expected a path such as "/webhooks"');
    const badWhsec = attempt({ authentication: { type: 'hmac', secret: 'whsec_not base64!!' } }) as Error;
    expect(badWhsec.message).toContain('a "whsec_" secret must be base64 after the prefix');
    expect(badWhsec.message).not.toContain('not base64!!');
  });

  it('refuses a replay window outside the github scheme and path bindings that are not a segment and an event', () => {
    const message = (options: unknown) => {
      try {
        new WebhookManager(options as WebhookManagerOptions);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(message({ authentication: { type: 'hmac', secret: SECRET, replayWindowSeconds: 3_600 } })).toBe(
      'Configuration invalid: webhooks.authentication.replayWindowSeconds: only for scheme "github": a Standard Webhooks message is remembered while its timestamp is within toleranceSeconds',
    );
    const github = { type: 'hmac', secret: SECRET, scheme: 'github' };
    expect(message({ authentication: { ...github, replayWindowSeconds: 10 } })).toMatch(
      /^Configuration invalid: webhooks\.authentication\.replayWindowSeconds: /,
    );
    expect(message({ authentication: { ...github, replayWindowSeconds: 604_800 } })).toBeUndefined();
    const bound = (pathEvents: unknown) => message({ server: { pathEvents }, authentication: github });
    expect(bound(JSON.parse('{"__proto__": "push"}'))).toMatch(/server\.pathEvents.*expected a path segment/);
    expect(bound({ 'a/b': 'push' })).toMatch(/expected a path segment/);
    expect(bound({ github: 'not an event!' })).toMatch(/server\.pathEvents\.github: expected an event name/);
    expect(bound(['push'])).toMatch(/expected \{"<path segment>": "<event name>"\}/);
    expect(bound({ github: 'push' })).toBeUndefined();
  });

  it('opens no server without a port; its routes are served only where the plugin is registered', async () => {
    const manager = new WebhookManager({ authentication: { type: 'hmac', secret: SECRET } });
    await manager.start();
    expect(manager.address).toBeUndefined();
    await manager.stop();
  });

  it('releases its port on stop()', async () => {
    const { manager, base } = await started();
    await manager.stop();
    await expect(fetch(`${base}/webhooks`, { method: 'POST' })).rejects.toThrow();
  });

  it("keeps its deliveries in the runtime's defaultOutbox only when delivery.outbox is not given", async () => {
    const calls: string[] = [];
    const memory: WebhookOutbox = {
      open: async () => {
        calls.push('open');
        return [];
      },
      put: async () => undefined,
      remove: async () => undefined,
      close: async () => void calls.push('close'),
    };
    const offered = new WebhookManager({}, { defaultOutbox: () => memory });
    await offered.start();
    await offered.stop();
    expect(calls).toEqual(['open', 'close']);

    let asked = 0;
    const directory = await mkdtemp(join(tmpdir(), 'threatlib-manager-outbox-'));
    const named = new WebhookManager(
      { delivery: { outbox: { directory } } },
      {
        defaultOutbox: () => {
          asked++;
          return memory;
        },
      },
    );
    await named.start();
    await named.stop();
    expect(asked).toBe(0);
    await rm(directory, { recursive: true, force: true });

    const broken = new WebhookManager({}, { defaultOutbox: () => ({ open: async () => [] }) as never });
    await expect(broken.start()).rejects.toThrow(/lacks open, put, remove or close/);
  });
});
