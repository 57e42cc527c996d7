import { ValidationError } from '@threatlib/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { type LogLine, NOW, post, recordingLogger, signed, started, update } from '../test-support/webhook-manager.js';

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
