// QRadar's syslog listeners as the emulator runs them: TCP (QRadar's port 514) and TLS Syslog (its default TLS
// listen port 6514), each message framed either by octet counting (RFC 6587 §3.4.1 / RFC 5425) or by a line feed
// (non-transparent framing, RFC 6587 §3.4.2), decided per connection by its first byte as syslog receivers do.
// A message longer than the maximum payload length is cut to it, as QRadar's "Max TCP Syslog Payload Length"
// system setting (4096 bytes by default) cuts it.
// - TLS Syslog protocol: https://www.ibm.com/docs/en/dsm?topic=options-tls-syslog-protocol-configuration
// - Multiple log sources over TLS Syslog (RFC 3164, RFC 5424 and RFC 5425 headers):
//   https://www.ibm.com/docs/en/qsip/7.6.0?topic=options-multiple-log-sources-over-tls-syslog
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

/** One message as a listener received it. */
export interface SyslogMessage {
  /** The message, cut to the maximum payload length. */
  text: string;
  /** Whether it was longer than the maximum and cut. */
  truncated: boolean;
  /** How it was framed. */
  framing: 'octet-counting' | 'lf';
  transport: 'tcp' | 'tls';
  remoteAddress: string;
}

/** Options of {@link startSyslogListener}. */
export interface SyslogListenerOptions {
  /** TLS with this key and certificate; plain TCP without. */
  tls?: { key: string; cert: string };
  /** Longest message kept, in bytes; the rest is cut. */
  maxPayloadBytes: number;
  onMessage(message: SyslogMessage): void;
}

/** A running listener. */
export interface SyslogListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Longest frame header (`LENGTH SP`) accepted before a connection is dropped as not syslog. */
const MAX_FRAME_DIGITS = 9;

/** Starts a syslog listener on 127.0.0.1 on a free port. */
export async function startSyslogListener(options: SyslogListenerOptions): Promise<SyslogListener> {
  const sockets = new Set<Socket>();
  const transport = options.tls ? 'tls' : 'tcp';
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    let framing: SyslogMessage['framing'] | undefined;
    const emit = (bytes: Buffer) => {
      const truncated = bytes.length > options.maxPayloadBytes;
      options.onMessage({
        text: (truncated ? bytes.subarray(0, options.maxPayloadBytes) : bytes).toString('utf8'),
        truncated,
        framing: framing as SyslogMessage['framing'],
        transport,
        remoteAddress: socket.remoteAddress ?? '127.0.0.1',
      });
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (buffer.length === 0) return;
        framing ??= buffer[0] !== undefined && buffer[0] >= 0x30 && buffer[0] <= 0x39 ? 'octet-counting' : 'lf';
        if (framing === 'lf') {
          const end = buffer.indexOf(0x0a);
          if (end === -1) return;
          const line = buffer.subarray(0, end);
          buffer = buffer.subarray(end + 1);
          const text = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
          if (text.length > 0) emit(text);
          continue;
        }
        const space = buffer.indexOf(0x20);
        if (space === -1) {
          if (buffer.length > MAX_FRAME_DIGITS) socket.destroy();
          return;
        }
        const header = buffer.subarray(0, space).toString('latin1');
        if (!/^[1-9][0-9]*$/.test(header) || header.length > MAX_FRAME_DIGITS) {
          socket.destroy();
          return;
        }
        const length = Number(header);
        if (buffer.length < space + 1 + length) return;
        emit(buffer.subarray(space + 1, space + 1 + length));
        buffer = buffer.subarray(space + 1 + length);
      }
    });
    // A message still in the buffer when the sender closes is one without its line feed: QRadar keeps it.
    socket.on('end', () => {
      if (framing === 'lf' && buffer.length > 0) emit(buffer);
      buffer = Buffer.alloc(0);
    });
  };
  const server: Server = options.tls
    ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }, onConnection)
    : createTcpServer(onConnection);
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
