// Syslog to a QRadar listener over TCP or TLS. QRadar has no REST call that takes an event: events reach it through
// a log source, here a TLS Syslog (or plain TCP syslog) listener. Each batch opens one connection, writes every
// message framed by octet counting (RFC 5425 §4.3, RFC 6587 §3.4.1) or by a trailing line feed (RFC 6587 §3.4.2),
// and closes it, so a batch is delivered when the listener has read it all and closed its side.
// - https://www.ibm.com/docs/en/dsm?topic=options-tls-syslog-protocol-configuration
// - https://www.rfc-editor.org/rfc/rfc5425 and https://www.rfc-editor.org/rfc/rfc6587
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { isCertificateFailure, NETWORK_FAILURE_WORDS } from '@threatlib/core/integration';
import type { SiemTlsOptions } from '../../connector/connector-options.js';
import type { PlatformCall } from '../platform.js';

/** Where and how syslog goes. */
export interface SyslogTarget {
  host: string;
  port: number;
  protocol: 'tls' | 'tcp';
  framing: 'octet-counting' | 'lf';
  tls: SiemTlsOptions;
}

/** The shared network words, said of a syslog listener. */
const REASONS: Readonly<Record<string, string>> = {
  ...NETWORK_FAILURE_WORDS,
  EPIPE: 'connection closed by the listener',
  EPROTO: 'TLS handshake failed (is the listener speaking TLS on this port?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the listener speaking TLS on this port?)',
};

/** One message framed for the stream. */
function frame(message: string, framing: SyslogTarget['framing']): string {
  return framing === 'lf' ? `${message}\n` : `${Buffer.byteLength(message, 'utf8')} ${message}`;
}

/** Sends `messages` on one connection and resolves once the listener has closed it after reading them. */
export async function sendSyslog(call: PlatformCall, target: SyslogTarget, messages: readonly string[]): Promise<void> {
  const payload = messages.map((message) => frame(message, target.framing)).join('');
  await withConnection(call, target, (socket, done) => {
    socket.end(payload);
    socket.once('close', () => done());
  });
}

/** Opens a connection to the listener (and completes the TLS handshake) and closes it without sending anything. */
export async function probeSyslog(call: PlatformCall, target: SyslogTarget): Promise<void> {
  await withConnection(call, target, (socket, done) => {
    socket.once('close', () => done());
    socket.end();
  });
}

function withConnection(
  call: PlatformCall,
  target: SyslogTarget,
  use: (socket: Socket, done: () => void) => void,
): Promise<void> {
  const address = `${target.host}:${target.port}`;
  return new Promise<void>((resolve, reject) => {
    if (call.signal.aborted) {
      reject(call.signal.reason);
      return;
    }
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      call.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => finish(call.signal.reason);
    const { ca, rejectUnauthorized, servername } = target.tls;
    const socket: Socket =
      target.protocol === 'tls'
        ? connectTls({
            host: target.host,
            port: target.port,
            rejectUnauthorized,
            ...(ca === undefined ? {} : { ca: (Array.isArray(ca) ? ca : [ca]).map(pemText) }),
            ...(servername !== undefined ? { servername } : isIP(target.host) === 0 ? { servername: target.host } : {}),
          })
        : connectTcp({ host: target.host, port: target.port });
    let connected = false;
    socket.once(target.protocol === 'tls' ? 'secureConnect' : 'connect', () => {
      connected = true;
      use(socket, () => finish());
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code;
      const certificate = isCertificateFailure(code);
      const reason = certificate
        ? `TLS certificate not trusted (${code}); pass its authority as tls.ca`
        : `${(code && REASONS[code]) ?? 'network error'}${code ? ` (${code})` : ''}${connected ? ' while sending' : ''}`;
      finish(
        call.errors.unreachable(`syslog listener: ${reason}`, {
          address,
          cause: error,
          isRetryable: !certificate,
        }),
      );
    });
    call.signal.addEventListener('abort', onAbort, { once: true });
  });
}

function pemText(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}
