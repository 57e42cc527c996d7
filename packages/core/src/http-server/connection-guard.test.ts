import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardConnections, type RefusedConnections } from './connection-guard.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that keeps every connection open and sends nothing, guarded as given. */
async function listen(options: Omit<Parameters<typeof guardConnections>[1], 'onCapReached'>) {
  const server = createServer();
  servers.push(server);
  const refused: RefusedConnections[] = [];
  guardConnections(server, { ...options, onCapReached: (r) => refused.push(r) });
  const accepted: Socket[] = [];
  const counts = { closed: 0 };
  server.on('connection', (socket) => {
    accepted.push(socket);
    socket.on('close', () => counts.closed++);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as { port: number }).port, refused, accepted, counts };
}

/** Connects from `from`; resolves with the socket and whether the server closed it at once. */
async function connect(port: number, from: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = new Socket();
  sockets.push(socket);
  const closed = once(socket, 'close').then(() => undefined);
  socket.connect({ port, host: '127.0.0.1', localAddress: from });
  await once(socket, 'connect');
  return { socket, closed };
}

describe('guardConnections', () => {
  it('closes connections past the cap of one client, reports it once, and leaves other clients alone', async () => {
    const { port, refused, counts } = await listen({ maxPerAddress: 2, key: (address) => address });
    const first = await connect(port, '127.0.0.2');
    const second = await connect(port, '127.0.0.2');
    const third = await connect(port, '127.0.0.2');
    const fourth = await connect(port, '127.0.0.2');
    await third.closed;
    await fourth.closed;
    expect(refused).toEqual([{ address: '127.0.0.2', max: 2 }]);
    const other = await connect(port, '127.0.0.3');
    expect(other.socket.destroyed).toBe(false);
    expect(first.socket.destroyed || second.socket.destroyed).toBe(false);

    // One closed: a new connection is taken, and reaching the cap again is reported again.
    first.socket.destroy();
    // The server has seen it close (the two refused ones closed before).
    while (counts.closed < 3) await new Promise((resolve) => setImmediate(resolve));
    const again = await connect(port, '127.0.0.2');
    const over = await connect(port, '127.0.0.2');
    await over.closed;
    expect(again.socket.destroyed).toBe(false);
    expect(refused).toHaveLength(2);
  });

  it('counts clients by their key: addresses with one key share the cap', async () => {
    const { port, refused } = await listen({ maxPerAddress: 1, key: () => 'everyone' });
    await connect(port, '127.0.0.2');
    const other = await connect(port, '127.0.0.3');
    await other.closed;
    expect(refused).toEqual([{ address: 'everyone', max: 1 }]);
  });

  it('caps nothing when maxPerAddress is 0', async () => {
    const { port, refused, accepted } = await listen({ maxPerAddress: 0, key: (address) => address });
    for (let i = 0; i < 5; i++) await connect(port, '127.0.0.2');
    while (accepted.length < 5) await new Promise((resolve) => setImmediate(resolve));
    expect(accepted.every((socket) => !socket.destroyed)).toBe(true);
    expect(refused).toEqual([]);
  });
});
