import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, InsecureEndpointError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookError } from '../errors/webhook-error.js';
import { WebhookManager, type WebhookManagerRuntime } from '../manager/webhook-manager.js';
import { type HostResolver, systemResolver } from '../network/guarded-agent.js';
import { FileOutbox } from './outbox/file-outbox.js';
import type { OutgoingOptions } from './outgoing-options.js';
import { Receiver } from './receiver.test-suite.js';

const WHSEC = `whsec_${Buffer.from('a Standard Webhooks key of 32 bytes!').toString('base64')}`;
const PLAIN = 'a plain shared secret, used as its UTF-8 bytes';
const START = Date.parse('2026-03-01T12:00:00Z');

let dir: string;
const receivers: Receiver[] = [];
const managers: WebhookManager[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-outgoing-'));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.stop()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await rm(dir, { recursive: true, force: true });
});

async function receiver(host?: string): Promise<Receiver> {
  const made = await new Receiver().listen(host);
  receivers.push(made);
  return made;
}

function manager(delivery: OutgoingOptions = {}, runtime: WebhookManagerRuntime = {}): WebhookManager {
  const made = new WebhookManager(
    { delivery: { outbox: { directory: join(dir, 'outbox') }, jitter: 0, ...delivery } },
    { enforceHttps: false, ...runtime },
  );
  managers.push(made);
  return made;
}

/** Names in `table` resolve as it says; any other name as the system resolves it (`localhost`). */
const resolver =
  (table: Record<string, string>): HostResolver =>
  async (hostname) => {
    const address = table[hostname];
    if (!address) return systemResolver(hostname);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

const THREAT = { indicator: '198.51.100.7', confidence: 92, sources: ['feed_otx', 'feed_abuse'] };

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

describe('the SSRF guard', () => {
  const LITERALS = [
    ['http://127.0.0.1:PORT/hook', 'loopback'],
    ['http://[::1]:PORT/hook', 'loopback'],
    ['http://[::ffff:127.0.0.1]:PORT/hook', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://168.63.129.16/machine?comp=goalstate', 'cloud metadata'],
    ['http://100.100.100.200/latest/meta-data/', 'cloud metadata'],
    ['http://192.0.0.192/latest/meta-data/', 'cloud metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata'],
    ['http://[64:ff9b::a83f:8110]/machine', 'cloud metadata'],
    ['http://0x7f000001:PORT/hook', 'loopback'],
  ] as const;

  it.each(LITERALS)('refuses %s as a definition, and nothing reaches the server', async (template, range) => {
    const target = await receiver('::');
    const webhooks = manager();
    const url = template.replace('PORT', String(target.port));
    expect(() => webhooks.addOutgoing({ name: 'inside', url, events: ['e'] })).toThrow(ConfigurationError);
    expect(() => webhooks.addOutgoing({ name: 'inside', url, events: ['e'] })).toThrow(new RegExp(range));
    expect(await webhooks.trigger('e', THREAT)).toEqual([]);
    expect(target.connections).toBe(0);
  });

  it('refuses a host name resolving to a loopback address at delivery, before any byte is sent', async () => {
    const target = await receiver('::');
    const webhooks = manager({}, { resolveHost: resolver({ 'hooks.partner.example': '127.0.0.1' }) });
    webhooks
      .addOutgoing({ name: 'localhost', url: `http://localhost:${target.port}/hook`, events: ['e'] })
      .addOutgoing({ name: 'partner', url: `http://hooks.partner.example:${target.port}/hook`, events: ['e'] });

    const results = await webhooks.trigger('e', THREAT);

    expect(results.map(({ status, attempts }) => ({ status, attempts }))).toEqual([
      { status: 'failed', attempts: 1 },
      { status: 'failed', attempts: 1 },
    ]);
    expect(results[0]?.error).toMatch(/is a loopback address/);
    expect(results[1]?.error).toMatch(/127\.0\.0\.1 is a loopback address \(hooks\.partner\.example resolves to it\)/);
    expect(target.connections).toBe(0);
    expect(webhooks.deliveryStats).toMatchObject({ blocked: 2, failed: 2, pending: 0, retried: 0 });
    expect(webhooks.deliveries({ status: 'failed' })).toHaveLength(2);
  });

  it('delivers to every one of those loopback forms once allowPrivateNetworks is on', async () => {
    const target = await receiver('::');
    const webhooks = manager({ allowPrivateNetworks: true }, { resolveHost: resolver({ 'partner.example': '::1' }) });
    const urls = [
      ...LITERALS.filter(([template]) => template.includes('PORT')).map(([template]) => template),
      'http://localhost:PORT/hook',
      'http://partner.example:PORT/hook',
    ];
    urls.forEach((template, i) => {
      webhooks.addOutgoing({ name: `e${i}`, url: template.replace('PORT', String(target.port)), events: ['e'] });
    });
    const results = await webhooks.trigger('e', THREAT);
    expect(results.map((result) => result.status)).toEqual(urls.map(() => 'delivered'));
    expect(target.requests).toHaveLength(urls.length);
  });

  it('does not follow a public-looking URL that redirects to a private one: the private server gets nothing', async () => {
    const inside = await receiver('127.0.0.2');
    const front = await receiver('127.0.0.1');
    front.answer = () => ({ status: 302, headers: { location: inside.url('/admin', '127.0.0.2') } });
    // public.example resolves to the front server, the one internal address allowed here.
    const webhooks = manager(
      { allowPrivateNetworks: ['127.0.0.1'], retrySchedule: [] },
      { resolveHost: resolver({ 'public.example': '127.0.0.1' }) },
    );
    webhooks.addOutgoing({ name: 'front', url: `http://public.example:${front.port}/hook`, events: ['e'] });

    const [result] = await webhooks.trigger('e', THREAT);

    expect(front.requests).toHaveLength(1);
    expect(front.requests[0]?.headers.host).toBe(`public.example:${front.port}`);
    expect(result).toMatchObject({ status: 'failed', statusCode: 302 });
    expect(result?.error).toMatch(/redirect: not followed/);
    expect(inside.connections).toBe(0);
  });
});

describe('retries', () => {
  it('delivers to a receiver that is down for the first attempts, later, with the same webhook-id', async () => {
    const clock = new ManualClock(START);
    // A port that refuses connections until the receiver listens on it.
    const probe = await new Receiver().listen();
    const port = probe.port;
    await probe.close();
    const webhooks = manager({ allowPrivateNetworks: true, retrySchedule: [1_000, 2_000, 60_000] }, { clock });
    webhooks.addOutgoing({ name: 'late', url: `http://127.0.0.1:${port}/hook`, events: ['e'], secret: WHSEC });

    const [first] = await webhooks.trigger('e', THREAT);
    expect(first).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(START + 1_000).toISOString(),
    });
    expect(first?.error).toMatch(/ECONNREFUSED/);

    const late = new Receiver();
    receivers.push(late);
    await late.listen('127.0.0.1', port);
    late.answer = (_request, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200 };
    await clock.advance(1_000);
    await until(() => late.requests.length === 1);
    // Retry-After (30 s) outweighs the schedule's 2 s.
    await clock.advance(29_000);
    expect(late.requests).toHaveLength(1);
    await clock.advance(1_000);
    await until(() => late.requests.length === 2);
    await until(() => webhooks.deliveries({ status: 'delivered' }).length === 1);

    const [record] = webhooks.deliveries({ status: 'delivered' });
    expect(record).toMatchObject({ endpoint: 'late', messageId: first?.messageId, attempts: 3, statusCode: 200 });
    expect(late.requests.map((request) => request.headers['webhook-id'])).toEqual([first?.messageId, first?.messageId]);
    // Each attempt is signed at its own time, so a retry hours later is still within a receiver's tolerance.
    expect(late.requests.map((request) => request.headers['webhook-timestamp'])).toEqual([
      String((START + 1_000) / 1000),
      String((START + 31_000) / 1000),
    ]);
    expect(webhooks.deliveryStats).toMatchObject({ delivered: 1, retried: 2, attempts: 3, pending: 0 });
  });

  it('fails a delivery finally once its schedule is spent, recording it and emptying the outbox', async () => {
    const clock = new ManualClock(START);
    const down = await receiver();
    down.answer = () => ({ status: 500 });
    const webhooks = manager({ allowPrivateNetworks: true, retrySchedule: [1_000] }, { clock });
    webhooks.addOutgoing({ name: 'down', url: down.url(), events: ['e'] });
    const [first] = await webhooks.trigger('e', THREAT);
    expect(first).toMatchObject({ status: 'pending', statusCode: 500 });
    await clock.advance(1_000);
    await until(() => webhooks.deliveries({ status: 'failed' }).length === 1);
    expect(webhooks.deliveries()).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 2,
        statusCode: 500,
        error: 'the receiver answered HTTP 500',
      }),
    ]);
    expect(webhooks.deliveryStats).toMatchObject({ failed: 1, pending: 0 });
    await webhooks.stop();
    const outbox = new FileOutbox(join(dir, 'outbox'));
    expect(await outbox.open()).toEqual([]);
    await outbox.close();
  });

  it('disables an endpoint that answers 410 Gone: nothing more is sent to it', async () => {
    const gone = await receiver();
    gone.answer = () => ({ status: 410 });
    const webhooks = manager({ allowPrivateNetworks: true });
    webhooks.addOutgoing({ name: 'gone', url: gone.url(), events: ['e'] });
    expect((await webhooks.trigger('e', THREAT))[0]).toMatchObject({ status: 'failed', statusCode: 410 });
    expect((await webhooks.trigger('e', THREAT))[0]).toMatchObject({ status: 'failed', attempts: 0 });
    expect(gone.requests).toHaveLength(1);
    expect(webhooks.deliveryStats.endpoints.gone).toMatchObject({ disabled: true, failed: 2 });
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

describe('the outbox', () => {
  it('keeps pending deliveries across a restart and sends them with the same webhook-id', async () => {
    const target = await receiver();
    target.answer = () => ({ status: 503 });
    const definition = { name: 'later', url: target.url(), events: ['e'], secret: WHSEC };
    const before = manager(
      { allowPrivateNetworks: true, retrySchedule: [3_600_000] },
      { clock: new ManualClock(START) },
    );
    before.addOutgoing(definition);
    const triggered = [
      ...(await before.trigger('e', { ...THREAT, indicator: 'a.example' })),
      ...(await before.trigger('e', { ...THREAT, indicator: 'b.example' })),
    ];
    expect(triggered.map((result) => result.status)).toEqual(['pending', 'pending']);
    await before.stop();

    target.answer = () => ({ status: 200 });
    const clock = new ManualClock(START + 3_600_000);
    const after = manager({ allowPrivateNetworks: true, retrySchedule: [3_600_000] }, { clock });
    after.addOutgoing(definition);
    await after.start();
    await until(() => after.deliveries({ status: 'delivered' }).length === 2);

    const ids = triggered.map((result) => result.messageId).sort();
    expect(
      target.requests
        .slice(2)
        .map((request) => request.headers['webhook-id'])
        .sort(),
    ).toEqual(ids);
    expect(after.deliveries({ status: 'delivered' }).map((record) => record.attempts)).toEqual([2, 2]);
  });

  it('lets only one manager use an outbox directory at a time', async () => {
    const first = manager();
    first.addOutgoing({ name: 'a', url: 'http://hooks.example/', events: ['e'] });
    await first.start();
    const second = manager();
    second.addOutgoing({ name: 'a', url: 'http://hooks.example/', events: ['e'] });
    await expect(second.trigger('e', THREAT)).rejects.toThrow(/held by another outbox of this process/);
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
