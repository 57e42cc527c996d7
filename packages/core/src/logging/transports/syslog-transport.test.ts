import { createSocket } from 'node:dgram';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse-config.js';
import { ManualClock } from '../../scheduler/clock.js';
import { closeLogger, createLogger } from '../create-logger.js';
import { SyslogTransport } from './syslog-transport.js';
import { entryOf } from './test-entry.test-suite.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Splits an octet-counted TCP stream (RFC 6587) into messages, checking each frame's length. */
function deframe(stream: Buffer): string[] {
  const messages: string[] = [];
  let at = 0;
  while (at < stream.length) {
    const space = stream.indexOf(0x20, at);
    const length = Number(stream.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0) throw new Error(`bad frame length at byte ${at}`);
    messages.push(stream.subarray(space + 1, space + 1 + length).toString('utf8'));
    at = space + 1 + length;
  }
  return messages;
}

/** The MSG of an RFC 5424 message whose STRUCTURED-DATA is `-`, parsed as JSON. */
function msgOf(message: string): Record<string, unknown> {
  return JSON.parse(message.split(' ').slice(7).join(' ')) as Record<string, unknown>;
}

/** A TCP syslog receiver keeping the raw bytes of each connection. */
async function tcpReceiver(port = 0) {
  const connections: Buffer[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const chunks: Buffer[] = [];
    connections.push(chunks);
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return {
    port: (server.address() as AddressInfo).port,
    messages: () => connections.flatMap((chunks) => deframe(Buffer.concat(chunks))),
    connections,
    stop,
  };
}

describe('SyslogTransport over UDP', () => {
  it('sends one RFC 5424 message per datagram', async () => {
    const received: string[] = [];
    const server = createSocket('udp4');
    server.on('message', (message) => received.push(message.toString('utf8')));
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const transport = new SyslogTransport({
      host: '127.0.0.1',
      port: server.address().port,
      protocol: 'udp',
      facility: 'local0',
      appName: 'threatlib-test',
      hostname: 'box',
      clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
    });
    transport.write(entryOf({ level: 40, category: 'feed', msg: 'slow', feed: 'feed_otx' }));
    transport.write(entryOf({ level: 30, msg: 'two' }));
    await transport.flush();
    await until(() => received.length === 2);
    await transport.close();

    expect(received[0]).toMatch(
      new RegExp(`^<132>1 2026-01-01T00:00:00\\.000Z box threatlib-test ${process.pid} feed - \\{.*"msg":"slow".*\\}$`),
    );
    expect(msgOf(received[0] ?? '')).toMatchObject({ feed: 'feed_otx', msg: 'slow' });
    expect(received[1]).toMatch(/^<134>1 \S+ box threatlib-test \d+ - - /);
    expect(transport.stats()).toMatchObject({ sent: 2, errors: 0 });
  });
});

describe('SyslogTransport over TCP', () => {
  it('frames messages by octet counting', async () => {
    const server = await tcpReceiver();
    cleanups.push(server.stop);
    const transport = new SyslogTransport({ host: '127.0.0.1', port: server.port, protocol: 'tcp', facility: 'user' });
    const long = 'é'.repeat(3_000);
    for (let seq = 0; seq < 50; seq++) transport.write(entryOf({ seq, long, msg: 'line\nwith newline' }));
    await transport.flush();
    await until(() => server.messages().length === 50);
    await transport.close();
    const messages = server.messages();
    expect(messages.map((m) => msgOf(m).seq)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(messages[0]).toMatch(/^<14>1 /);
    expect(server.connections).toHaveLength(1);
  });

  it('queues while the server is down, reconnects with growing delays, and delivers in order', async () => {
    const first = await tcpReceiver();
    const port = first.port;
    const clock = new ManualClock(0);
    const reports: string[] = [];
    const transport = new SyslogTransport({
      host: '127.0.0.1',
      port,
      protocol: 'tcp',
      facility: 'user',
      clock,
      report: (level) => reports.push(level),
    });
    transport.write(entryOf({ seq: 0 }));
    await transport.flush();
    await until(() => first.messages().length === 1);
    await first.stop();

    // Once the transport has seen the connection close, it queues without blocking the caller.
    await until(() => transport.stats().connected === 0);
    for (let seq = 1; seq <= 5; seq++) transport.write(entryOf({ seq }));
    await until(() => (transport.stats().errors ?? 0) > 0);
    expect(reports).toEqual(['warn']);

    const second = await tcpReceiver(port);
    cleanups.push(second.stop);
    // Each failed attempt waits twice as long as the one before; a minute covers them.
    for (let i = 0; i < 12 && second.messages().length < 5; i++) {
      await clock.advance(5_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await until(() => second.messages().length >= 5);
    await transport.close();
    const delivered = second.messages().map((m) => msgOf(m).seq);
    expect(delivered).toEqual([1, 2, 3, 4, 5]);
    expect(reports).toEqual(['warn', 'info']);
  });

  it('bounds the queue while the server is unreachable, and close() does not wait for it', async () => {
    const gone = await tcpReceiver();
    await gone.stop();
    const transport = new SyslogTransport({
      host: '127.0.0.1',
      port: gone.port,
      protocol: 'tcp',
      facility: 'user',
      maxBuffer: 10,
      clock: new ManualClock(0),
    });
    for (let seq = 0; seq < 100; seq++) transport.write(entryOf({ seq }));
    expect(transport.stats()).toMatchObject({ buffered: 10, dropped: 90 });
    await transport.close();
    expect(transport.stats()).toMatchObject({ buffered: 0, dropped: 100, sent: 0 });
  });
});

describe('SyslogTransport: one record on the wire per line, whatever the line holds', () => {
  // What a receiver may end a record at, or show as a break: NUL, VT, FF, CR, LF, NEL, U+2028, U+2029, DEL, C1.
  const BREAKERS = ['\u0000', '\u000b', '\u000c', '\r', '\n', '\u0085', '\u2028', '\u2029', '\u007f', '\u009b'];

  async function udpReceiver() {
    const received: string[] = [];
    const server = createSocket('udp4');
    server.on('message', (message) => received.push(message.toString('utf8')));
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { port: server.address().port, messages: () => received };
  }

  it.each([
    ['tcp', 'json'],
    ['tcp', 'text'],
    ['udp', 'json'],
    ['udp', 'text'],
  ] as const)(
    'over %s as %s: one message per line, with no raw control or separator character',
    async (protocol, format) => {
      const server = protocol === 'tcp' ? await tcpReceiver() : await udpReceiver();
      if (protocol === 'tcp') cleanups.push((server as Awaited<ReturnType<typeof tcpReceiver>>).stop);
      const logging = parseConfig({
        sources: ['feed_urls'],
        logging: {
          format,
          stderr: false,
          transports: { syslog: { host: '127.0.0.1', port: server.port, protocol, facility: 'user' } },
        },
      }).logging;
      const logger = createLogger(logging);
      for (const [seq, c] of BREAKERS.entries()) logger.warn({ seq, [`k${c}`]: `v${c}` }, `first${c}second`);
      await closeLogger(logger);
      await until(() => server.messages().length >= BREAKERS.length);
      const messages = server.messages();
      expect(messages).toHaveLength(BREAKERS.length);
      for (const message of messages) {
        expect(message).toMatch(/^<12>1 /);
        expect(message).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
      }
    },
  );
});
