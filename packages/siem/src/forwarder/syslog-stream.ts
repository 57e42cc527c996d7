import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { untilAborted } from '@threatlib/core/integration';

/** Where and how {@link SyslogStream} connects. */
export interface SyslogStreamOptions {
  host: string;
  port: number;
  /** TLS (RFC 5425) when given; plain TCP (RFC 6587) otherwise. */
  tls?: { ca?: string | string[]; rejectUnauthorized: boolean; servername?: string } | undefined;
  /** Most time a connection (and its TLS handshake) may take, in ms (default 10000). */
  connectTimeoutMs?: number;
  /** Most time `close()` waits for the receiver to take what was written, in ms (default 2000). */
  closeTimeoutMs?: number;
}

/**
 * One long-lived syslog connection over TCP or TLS that frames are written to, opened on the first `write` and
 * again after it breaks. Frames are written whole and in order, one `write` call each, so concurrent writes never
 * interleave. Syslog has no acknowledgement: a write resolves once the frame is handed to the operating system.
 */
export class SyslogStream {
  readonly #options: SyslogStreamOptions;
  #socket: Socket | TLSSocket | undefined;
  #opening: Promise<Socket | TLSSocket> | undefined;

  constructor(options: SyslogStreamOptions) {
    this.#options = options;
  }

  /** Whether a connection is open now. */
  get connected(): boolean {
    return this.#socket !== undefined;
  }

  /**
   * Writes `frame`, connecting first when no connection is open.
   *
   * @returns the bytes written.
   * @throws the network or TLS error (its `code`: `ECONNREFUSED`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`...), or an
   *   `AbortError` when `signal` aborts first; a frame cut short by an abort closes the connection, so the receiver
   *   never reads half a frame followed by the next.
   */
  async write(frame: string, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const socket = await this.#open(signal);
    const bytes = Buffer.from(frame, 'utf8');
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        socket.destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.write(bytes, (error) => {
        signal?.removeEventListener('abort', onAbort);
        if (error) {
          socket.destroy();
          reject(error);
        } else resolve();
      });
    });
    return bytes.length;
  }

  /** Ends the connection once what was written is sent (destroying it after `closeTimeoutMs`). */
  async close(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    const socket = this.#socket ?? (await opening?.catch(() => undefined));
    this.#socket = undefined;
    if (!socket || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => socket.destroy(), this.#options.closeTimeoutMs ?? 2000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.end();
    });
  }

  #open(signal: AbortSignal | undefined): Promise<Socket | TLSSocket> {
    if (this.#socket && !this.#socket.destroyed) return Promise.resolve(this.#socket);
    this.#opening ??= this.#connect().finally(() => {
      this.#opening = undefined;
    });
    return untilAborted(this.#opening, signal);
  }

  #connect(): Promise<Socket | TLSSocket> {
    const { host, port, tls } = this.#options;
    const socket = tls
      ? connectTls({
          host,
          port,
          // RFC 5425 §4.2 and RFC 9662: TLS 1.2 or later.
          minVersion: 'TLSv1.2',
          rejectUnauthorized: tls.rejectUnauthorized,
          ...(tls.ca === undefined ? {} : { ca: tls.ca }),
          // Node sends SNI for a host name by itself (never for an address, RFC 6066 §3) and checks the
          // certificate against the host either way; servername overrides both.
          ...(tls.servername === undefined ? {} : { servername: tls.servername }),
        })
      : connectTcp({ host, port });
    const ready = tls ? 'secureConnect' : 'connect';
    return new Promise((resolve, reject) => {
      const timeoutMs = this.#options.connectTimeoutMs ?? 10_000;
      socket.setTimeout(timeoutMs, () => {
        socket.destroy(Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
      const onError = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.once(ready, () => {
        socket.off('error', onError);
        socket.setTimeout(0);
        socket.setKeepAlive(true, 30_000);
        socket.setNoDelay(true);
        // A receiver sends nothing; reading keeps TLS alerts and the peer's close flowing.
        socket.on('data', () => {});
        socket.on('error', () => socket.destroy());
        socket.once('close', () => {
          if (this.#socket === socket) this.#socket = undefined;
        });
        this.#socket = socket;
        resolve(socket);
      });
    });
  }
}
