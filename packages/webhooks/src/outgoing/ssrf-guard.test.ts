import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { manager, receiver, resolver, THREAT } from '../test-support/outgoing.js';

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
