import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { TestPki } from '@threatlib/test-utils';

/**
 * A syslog receiver on a loopback port, over TCP (RFC 6587) or TLS (RFC 5425), that reads octet-counted frames as
 * the RFCs define them (`MSG-LEN SP SYSLOG-MSG`, the length in bytes) and keeps each message. A frame that is not
 * octet-counted is kept in `errors`, so a test sees a framing mistake rather than a merged message.
 */
export class SyslogReceiver {
  readonly messages: string[] = [];
  readonly errors: string[] = [];
  /** Connections accepted so far. */
  connections = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(pki?: TestPki) {
    const handle = (socket: Socket) => {
      this.connections += 1;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      let buffered = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        for (;;) {
          const space = buffered.indexOf(0x20);
          if (space === -1) break;
          const length = buffered.subarray(0, space).toString('ascii');
          if (!/^[1-9][0-9]*$/.test(length)) {
            this.errors.push(`not octet-counted: ${JSON.stringify(buffered.subarray(0, 40).toString())}`);
            socket.destroy();
            return;
          }
          const end = space + 1 + Number(length);
          if (buffered.length < end) break;
          this.messages.push(buffered.subarray(space + 1, end).toString('utf8'));
          buffered = buffered.subarray(end);
          this.#notify();
        }
      });
    };
    this.#server = pki ? createTlsServer({ key: pki.key, cert: pki.cert }, handle) : createTcpServer(handle);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Resolves once `count` messages have arrived (a test's own timeout bounds the wait). */
  received(count: number): Promise<string[]> {
    if (this.messages.length >= count) return Promise.resolve(this.messages);
    return new Promise((resolve) => this.#waiters.push({ count, resolve: () => resolve(this.messages) }));
  }

  /** Drops every open connection (as a receiver that restarts would). */
  dropConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) {
      if (this.messages.length >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}
