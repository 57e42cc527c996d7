import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError } from './blocked-address-error.js';
import { createGuardedAgent, type HostResolver } from './guarded-agent.js';

// One server on every loopback address (IPv4, IPv6 and IPv4-mapped): it counts the connections it gets, so a
// refusal is shown to have sent nothing, not merely to have failed.
let server: Server;
let port: number;
let connections = 0;
const hosts: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    res.end('ok');
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const resolver =
  (table: Record<string, string[]>): HostResolver =>
  async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

async function send(url: string, agent: ReturnType<typeof createGuardedAgent>): Promise<number> {
  const response = await request(url, { method: 'POST', body: '{}', dispatcher: agent });
  await response.body.dump();
  return response.statusCode;
}

const INTERNAL_URLS = [
  'http://127.0.0.1:PORT/hook',
  'http://[::1]:PORT/hook',
  'http://[::ffff:127.0.0.1]:PORT/hook',
  'http://0x7f000001:PORT/hook',
  'http://017700000001:PORT/hook',
  'http://127.1:PORT/hook',
  'http://2130706433:PORT/hook',
  'http://localhost:PORT/hook',
];

describe('createGuardedAgent', () => {
  it.each(INTERNAL_URLS)('refuses %s before any byte is sent', async (template) => {
    const agent = createGuardedAgent();
    const before = connections;
    const error = await send(template.replace('PORT', String(port)), agent).catch((e: unknown) => e);
    await agent.close();
    expect(BlockedAddressError.find(error), String(error)).toBeDefined();
    expect(BlockedAddressError.find(error)?.range).toBe('loopback');
    expect(connections).toBe(before);
  });

  it('refuses the cloud metadata address, even with allowPrivateNetworks: true, without a packet leaving', async () => {
    for (const allow of [false, true]) {
      const agent = createGuardedAgent({ allowPrivateNetworks: allow });
      const error = await send('http://169.254.169.254/latest/meta-data/', agent).catch((e: unknown) => e);
      await agent.close();
      expect(BlockedAddressError.find(error)?.range).toBe('cloudMetadata');
    }
  });

  it('refuses a host name any of whose addresses is internal, public ones notwithstanding', async () => {
    const agent = createGuardedAgent({
      resolve: resolver({ 'mixed.example': ['93.184.215.14', '127.0.0.1'], 'inside.example': ['10.0.0.8'] }),
    });
    const before = connections;
    const mixed = await send(`http://mixed.example:${port}/`, agent).catch((e: unknown) => e);
    const inside = await send(`http://inside.example:${port}/`, agent).catch((e: unknown) => e);
    await agent.close();
    expect(BlockedAddressError.find(mixed)).toMatchObject({ host: 'mixed.example', address: '127.0.0.1' });
    expect(BlockedAddressError.find(inside)).toMatchObject({ address: '10.0.0.8', range: 'private' });
    expect(connections).toBe(before);
  });

  it('reaches every loopback form once allowPrivateNetworks is on', async () => {
    const agent = createGuardedAgent({ allowPrivateNetworks: true });
    for (const template of INTERNAL_URLS) {
      expect(await send(template.replace('PORT', String(port)), agent), template).toBe(200);
    }
    await agent.close();
  });

  it('connects to the address it checked, sending the name as the Host', async () => {
    // The resolver answers once per connection; a second, different answer (a rebinding) is never asked for
    // while the connection lives, and whatever it answers is checked before it is used.
    let calls = 0;
    const agent = createGuardedAgent({
      allowPrivateNetworks: ['127.0.0.1'],
      resolve: async () => {
        calls += 1;
        return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }];
      },
    });
    hosts.length = 0;
    expect(await send(`http://public.example:${port}/`, agent)).toBe(200);
    expect(hosts).toEqual([`public.example:${port}`]);
    await agent.close();
    const rebound = createGuardedAgent({
      allowPrivateNetworks: ['127.0.0.1'],
      resolve: async () => [{ address: '10.0.0.1', family: 4 }],
    });
    const error = await send(`http://public.example:${port}/`, rebound).catch((e: unknown) => e);
    await rebound.close();
    expect(BlockedAddressError.find(error)?.address).toBe('10.0.0.1');
  });
});
