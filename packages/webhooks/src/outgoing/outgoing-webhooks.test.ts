import { join } from 'node:path';
import { ConfigurationError, InsecureEndpointError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../errors/webhook-error.js';
import { WebhookManager } from '../manager/webhook-manager.js';
import { dir, manager, PLAIN, receiver, START, THREAT, until, WHSEC } from '../test-support/outgoing.js';
import { FileOutbox } from './outbox/file-outbox.js';

describe('trigger', () => {
  it('refuses high-confidence-threat data whose confidence is a 0..1 score, before anything is kept or sent', async () => {
    const soc = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true });
    webhooks.addOutgoing({ name: 'soc', url: soc.url(), events: ['high-confidence-threat'] });
    await expect(webhooks.trigger('high-confidence-threat', { ...THREAT, confidence: 0.9 })).rejects.toThrow(
      'the data of "high-confidence-threat": confidence is 0..100; got 0.9 (did you mean 90?)',
    );
    await expect(webhooks.trigger('high-confidence-threat', { ...THREAT, confidence: 150 })).rejects.toThrow(
      'confidence is 0..100; got 150',
    );
    expect(webhooks.deliveries()).toEqual([]);
    expect(soc.requests).toEqual([]);
    // 1 is 1 %: sent.
    const sent = await webhooks.trigger('high-confidence-threat', { ...THREAT, confidence: 1 });
    expect(sent.map((result) => result.status)).toEqual(['delivered']);
  });

  it('POSTs the Standard Webhooks payload to every subscribed endpoint, signed so that standardwebhooks verifies it', async () => {
    const soc = await receiver();
    const siem = await receiver();
    const other = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true }, { clock: new ManualClock(START) });
    webhooks
      .addOutgoing({
        name: 'soc',
        url: soc.url('/hooks/a'),
        events: ['high-confidence-threat'],
        headers: { Authorization: 'Bearer soc-token', 'X-Tenant': 'blue' },
        secret: WHSEC,
      })
      .addOutgoing({
        name: 'siem',
        url: siem.url(),
        events: ['high-confidence-threat', 'campaign-detected'],
        secret: PLAIN,
      })
      .addOutgoing({ name: 'other', url: other.url(), events: ['campaign-detected'] });

    const results = await webhooks.trigger('high-confidence-threat', THREAT);

    expect(results.map(({ endpoint, status, attempts }) => ({ endpoint, status, attempts }))).toEqual([
      { endpoint: 'soc', status: 'delivered', attempts: 1 },
      { endpoint: 'siem', status: 'delivered', attempts: 1 },
    ]);
    expect(results[0]?.messageId).toBe(results[1]?.messageId);
    expect(other.requests).toHaveLength(0);
    const [toSoc] = soc.requests;
    const [toSiem] = siem.requests;
    if (!toSoc || !toSiem) throw new Error('a subscribed endpoint got nothing');
    expect(toSoc.method).toBe('POST');
    expect(toSoc.url).toBe('/hooks/a');
    expect(toSoc.headers).toMatchObject({
      authorization: 'Bearer soc-token',
      'x-tenant': 'blue',
      'content-type': 'application/json',
      'webhook-id': results[0]?.messageId,
      'webhook-timestamp': String(START / 1000),
    });
    expect(JSON.parse(toSoc.body)).toEqual({
      type: 'high-confidence-threat',
      timestamp: new Date(START).toISOString(),
      data: THREAT,
    });
    // The official library, with the same clock, is the judge of the signatures.
    const at = { now: () => START };
    const verify = (secret: string, raw: boolean, request: typeof toSoc) => {
      const original = Date.now;
      Date.now = at.now;
      try {
        return new Webhook(secret, raw ? { format: 'raw' } : undefined).verify(request.body, request.headers);
      } finally {
        Date.now = original;
      }
    };
    expect(verify(WHSEC, false, toSoc)).toEqual(JSON.parse(toSoc.body));
    expect(verify(PLAIN, true, toSiem)).toEqual(JSON.parse(toSiem.body));
    expect(() => verify(PLAIN, true, toSoc)).toThrow();
  });

  it('sends no signature without a secret, and resolves with no result when no endpoint lists the event', async () => {
    const plain = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true });
    webhooks.addOutgoing({ name: 'plain', url: plain.url(), events: ['campaign-detected'] });
    expect(await webhooks.trigger('high-confidence-threat', THREAT)).toEqual([]);
    const [result] = await webhooks.trigger('campaign-detected', { campaign: 'cmp_1' });
    expect(result?.status).toBe('delivered');
    expect(plain.requests[0]?.headers['webhook-id']).toBe(result?.messageId);
    expect(plain.requests[0]?.headers['webhook-signature']).toBeUndefined();
  });

  it('refuses bad definitions with the reason, never quoting a secret', () => {
    const webhooks = manager();
    const refusal = (definition: unknown) => {
      try {
        webhooks.addOutgoing(definition as never);
      } catch (error) {
        return error as Error;
      }
      throw new Error('accepted');
    };
    expect(refusal({ name: 'a', url: 'ftp://example.com/', events: ['x'] }).message).toMatch(/http or https/);
    expect(refusal({ name: 'a', url: 'https://user:pw@example.com/', events: ['x'] }).message).toMatch(/credentials/);
    expect(refusal({ name: 'a', url: 'https://example.com/', events: [] }).message).toMatch(/at least one event/);
    expect(
      refusal({ name: 'a', url: 'https://example.com/', events: ['x'], headers: { 'Webhook-Signature': 'v1,x' } })
        .message,
    ).toMatch(/webhooks\.outgoing\["a"\]\.headers\.Webhook-Signature: set by the sender/);
    const twice = refusal({
      name: 'a',
      url: 'https://example.com/',
      events: ['x'],
      headers: { Authorization: 'Bearer a', authorization: 'Bearer b' },
    });
    expect(twice.message).toMatch(/headers\.authorization: given twice \(header names ignore case\)/);
    expect(twice.message).not.toContain('Bearer');
    // Core's header check, as undici refuses: the value's fault is named, never the value; a bad name is quoted.
    const injected = refusal({
      name: 'a',
      url: 'https://example.com/',
      events: ['x'],
      headers: { authorization: 'Bearer tok\r\nInjected: 1' },
    });
    expect(injected.message).toContain(
      'headers.authorization: a header value cannot hold a line break (CR or LF): character 11 is one',
    );
    expect(injected.message).not.toContain('Injected');
    expect(
      refusal({ name: 'a', url: 'https://example.com/', events: ['x'], headers: { 'x-a\r\nb': 'v' } }).message,
    ).toContain(
      'headers: expected a header name (an RFC 9110 token: letters, digits and !#$%&\'*+-.^_`|~), got "x-a\\r\\nb"',
    );
    const short = refusal({ name: 'a', url: 'https://example.com/', events: ['x'], secret: 'tiny-secret' });
    expect(short.message).toMatch(/secret: the secret has 11 bytes/);
    expect(short.message).not.toContain('tiny-secret');
    webhooks.addOutgoing({ name: 'a', url: 'https://example.com/', events: ['x'] });
    expect(refusal({ name: 'a', url: 'https://example.org/', events: ['x'] }).message).toMatch(/is registered/);
  });

  it('requires https while HTTPS is enforced (the default)', () => {
    const webhooks = new WebhookManager({ delivery: { outbox: { directory: join(dir, 'outbox') } } });
    expect(() => webhooks.addOutgoing({ name: 'a', url: 'http://example.com/hook', events: ['x'] })).toThrow(
      InsecureEndpointError,
    );
    expect(() => webhooks.addOutgoing({ name: 'b', url: 'https://example.com/hook', events: ['x'] })).not.toThrow();
  });
});

// Issue 21, finding 4: keys copied by assignment. A header map from JSON lost its "__proto__" key in the schema
// without a word; an endpoint named "__proto__" vanished from the delivery stats.
describe('names that are prototype keys', () => {
  it('a header named "__proto__" is refused, naming it, rather than dropped', () => {
    const webhooks = manager();
    const headers = JSON.parse('{"__proto__":"x","authorization":"Bearer t"}') as Record<string, string>;
    const define = () => webhooks.addOutgoing({ name: 'soc', url: 'http://127.0.0.1:1/hook', events: ['e'], headers });
    expect(define).toThrow(ConfigurationError);
    expect(define).toThrow(/headers\.__proto__: not a header name/);
  });

  it('an endpoint named "__proto__" or "constructor" has its own entry in the delivery stats', async () => {
    const target = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true });
    for (const name of ['__proto__', 'constructor']) webhooks.addOutgoing({ name, url: target.url(), events: ['e'] });
    await webhooks.trigger('e', THREAT);
    const stats = webhooks.deliveryStats;
    expect(Object.keys(stats.endpoints).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(stats.endpoints)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(stats.endpoints, '__proto__')?.value).toMatchObject({ delivered: 1 });
    expect(stats.delivered).toBe(2);
  });
});

describe('trigger refuses what it cannot send', () => {
  it('refuses a messageId that cannot be a header (CR/LF...), saying why, and keeps nothing', async () => {
    const target = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true });
    webhooks.addOutgoing({ name: 'soc', url: target.url(), events: ['high-confidence-threat'] });
    const refusal = async (messageId: unknown) => {
      try {
        await webhooks.trigger('high-confidence-threat', THREAT, { messageId } as never);
      } catch (error) {
        expect(WebhookError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(await refusal('msg_1\r\nX-Injected: 1')).toBe(
      'the messageId of "high-confidence-threat" must be 1 to 256 printable ASCII characters without spaces (it is sent as the webhook-id header); it has a line break: "msg_1\\r\\nX-Injected: 1"; nothing was sent',
    );
    expect(await refusal('msg 1')).toMatch(/it has a space: "msg 1"/);
    expect(await refusal('msg_\u0000')).toMatch(/it has a control character: "msg_\\u0000"/);
    expect(await refusal('msg_\u00e9')).toMatch(/it has a character outside printable ASCII/);
    expect(await refusal('')).toMatch(/it is empty/);
    expect(await refusal('m'.repeat(300))).toMatch(/it has 300 characters: "m{80}…"; nothing was sent$/);
    expect(await refusal(42)).toMatch(/expected a string; got number/);
    expect(webhooks.deliveries()).toEqual([]);
    expect(webhooks.deliveryStats).toMatchObject({ pending: 0, attempts: 0 });
    expect(target.requests).toHaveLength(0);
    // Nothing was written either: a manager opening the same outbox finds nothing to resume.
    await webhooks.stop();
    const after = manager({ allowPrivateNetworks: true });
    after.addOutgoing({ name: 'soc', url: target.url(), events: ['high-confidence-threat'] });
    await after.start();
    expect(after.deliveries()).toEqual([]);
    // A printable id is sent as given.
    const [sent] = await after.trigger('high-confidence-threat', THREAT, {
      messageId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
    });
    expect(sent).toMatchObject({ status: 'delivered', messageId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' });
  });

  it('fails for good, at its first attempt, a delivery kept with an id no request can carry (an older outbox)', async () => {
    const target = await receiver();
    const outbox = new FileOutbox(join(dir, 'outbox'));
    await outbox.open();
    const messageId = 'msg_1\r\nX-Injected: 1';
    await outbox.put({
      key: `soc\n${messageId}`,
      messageId,
      endpoint: 'soc',
      event: 'high-confidence-threat',
      body: JSON.stringify({ type: 'high-confidence-threat', timestamp: new Date(START).toISOString(), data: THREAT }),
      createdAt: START,
      attempts: 0,
      nextAttemptAt: START,
    });
    await outbox.close();
    const webhooks = manager({ allowPrivateNetworks: true }, { clock: new ManualClock(START) });
    webhooks.addOutgoing({ name: 'soc', url: target.url(), events: ['high-confidence-threat'] });
    await webhooks.start();
    await until(() => webhooks.deliveries({ status: 'failed' }).length === 1);
    expect(webhooks.deliveries()).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 1,
        error: 'the request cannot be sent: invalid webhook-id header',
      }),
    ]);
    expect(webhooks.deliveryStats).toMatchObject({ pending: 0, retried: 0, failed: 1 });
    expect(target.requests).toHaveLength(0);
  });

  it('warns once per event name that no outgoing webhook lists, through its logger', async () => {
    const lines: Array<{ obj: object; msg: string | undefined }> = [];
    const logger = {
      debug() {},
      info() {},
      warn: (obj: object, msg?: string) => void lines.push({ obj, msg }),
      error() {},
    };
    const target = await receiver();
    const webhooks = manager({ allowPrivateNetworks: true }, { logger });
    expect(await webhooks.trigger('unknown-event', THREAT)).toEqual([]);
    expect(lines).toEqual([
      {
        obj: { category: 'integration', event: 'unknown-event' },
        msg: 'trigger("unknown-event") sent nothing: no outgoing webhook lists this event (none is registered); said once per event name',
      },
    ]);
    webhooks.addOutgoing({ name: 'soc', url: target.url(), events: ['high-confidence-threat', 'threat-report'] });
    expect(await webhooks.trigger('unknown-event', THREAT)).toEqual([]);
    expect(await webhooks.trigger('high-confidense-threat', THREAT)).toEqual([]);
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringContaining('"unknown-event"'),
      'trigger("high-confidense-threat") sent nothing: no outgoing webhook lists this event (the events listed: high-confidence-threat, threat-report); said once per event name',
    ]);
    // A documented event nobody subscribed to, and a listed one, are not warned about.
    expect(await webhooks.trigger('campaign-detected', { campaign: 'cmp_1' })).toEqual([]);
    expect(await webhooks.trigger('threat-report', THREAT)).toHaveLength(1);
    expect(lines).toHaveLength(2);
  });
});
