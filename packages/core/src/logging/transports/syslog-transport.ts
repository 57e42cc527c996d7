import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, isIPv6, type Socket } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { type Clock, systemClock } from '../../scheduler/clock.js';
import {
  facilityCode,
  formatRfc5424,
  octetCountingFrame,
  type SyslogFacilityName,
  syslogSeverity,
} from '../rfc5424.js';
import type { LogEntry, LogSink, TransportReport } from './log-sink.js';

/** Options of {@link SyslogTransport}. */
export interface SyslogTransportOptions {
  /** The name in stats, metrics and reports (default `syslog`; `syslog#2`... for a second one of the type). */
  name?: string;
  host: string;
  port: number;
  /** `udp`: one message per datagram. `tcp`: octet-counting framing (RFC 6587), reconnecting after a failure. */
  protocol: 'udp' | 'tcp';
  facility: SyslogFacilityName | number;
  /** APP-NAME of each message. Default `threatlib`. */
  appName?: string;
  /** The lowest pino level sent. Default 0 (all). */
  level?: number;
  filter?: ((line: Record<string, unknown>) => boolean) | undefined;
  /** MSG is the line rendered as text instead of JSON. */
  text?: boolean;
  /** TCP: messages held while (re)connecting; past that new ones are dropped and counted. Default 10,000. */
  maxBuffer?: number;
  /** TCP: most ms a connection attempt may take. Default 10,000. */
  connectTimeout?: number;
  /** Told once when messages cannot be delivered, and once when they can again. */
  report?: TransportReport;
  /** Reconnection delays; and the time stamped on messages. */
  clock?: Clock;
  /** HOSTNAME of each message. Default the machine's host name. */
  hostname?: string;
}

/**
 * Sends each line to a syslog server as an RFC 5424 message: PRI from the facility and the line's level, the
 * line's category as MSGID, and the JSON line (or its text rendering) as MSG. Over UDP a message is one datagram;
 * over TCP messages are octet-counted, queued (bounded) while the connection is down and sent once it is back,
 * with doubling delays between attempts. `write` never waits for the network.
 */
export class SyslogTransport implements LogSink {
  readonly name: string;
  readonly level: number;
  readonly filter: ((line: Record<string, unknown>) => boolean) | undefined;
  readonly #options: SyslogTransportOptions;
  readonly #clock: Clock;
  readonly #facility: number;
  readonly #hostname: string;
  readonly #maxBuffer: number;
  #udp: UdpSocket | undefined;
  #tcp: Socket | undefined;
  #connected = false;
  #queue: string[] = [];
  #inFlight = 0;
  #reconnectTimer: unknown;
  #attempt = 0;
  #closing = false;
  #failing = false;
  #waiters: Array<() => void> = [];
  #stats = { sent: 0, dropped: 0, errors: 0, connects: 0 };

  constructor(options: SyslogTransportOptions) {
    this.#options = options;
    this.name = options.name ?? 'syslog';
    this.level = options.level ?? 0;
    this.filter = options.filter;
    this.#clock = options.clock ?? systemClock;
    this.#facility = facilityCode(options.facility);
    this.#hostname = options.hostname ?? osHostname();
    this.#maxBuffer = options.maxBuffer ?? 10_000;
  }

  write(entry: LogEntry): void {
    const message = formatRfc5424({
      facility: this.#facility,
      severity: syslogSeverity(entry.level),
      timestamp: new Date(this.#clock.now()),
      hostname: this.#hostname,
      appName: this.#options.appName ?? 'threatlib',
      procId: process.pid,
      msgId: entry.category,
      message: this.#options.text ? entry.text() : entry.line,
    });
    if (this.#options.protocol === 'udp') this.#sendUdp(message);
    else this.#sendTcp(octetCountingFrame(message));
  }

  /** Resolves when every message was handed to the kernel, or (TCP) cannot be until the server is back. */
  async flush(): Promise<void> {
    while (!this.#idle()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.#closing = true;
    try {
      if (this.#reconnectTimer !== undefined) {
        this.#clock.clearTimeout(this.#reconnectTimer);
        this.#reconnectTimer = undefined;
      }
      await this.flush();
      this.#stats.dropped += this.#queue.splice(0).length;
      const udp = this.#udp;
      this.#udp = undefined;
      if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
      const tcp = this.#tcp;
      if (tcp) {
        await new Promise<void>((resolve) => {
          tcp.once('close', () => resolve());
          tcp.end();
          // A peer that never answers our FIN must not hold up a shutdown.
          tcp.setTimeout(2_000, () => tcp.destroy());
        });
      }
    } finally {
      this.#closing = false;
    }
  }

  stats(): Record<string, number> {
    return { ...this.#stats, buffered: this.#queue.length, connected: this.#connected ? 1 : 0 };
  }

  #idle(): boolean {
    if (this.#inFlight > 0) return false;
    // Queued TCP messages wait for a connection; without one under way they cannot be delivered now.
    return this.#queue.length === 0 || this.#tcp === undefined;
  }

  #settle(): void {
    if (!this.#idle()) return;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #sendUdp(message: string): void {
    if (!this.#udp) {
      const socket = createSocket(isIPv6(this.#options.host) ? 'udp6' : 'udp4');
      socket.on('error', (error) => this.#failed(error));
      // Datagrams are handed to the kernel at once: an idle socket must not keep the process alive.
      socket.unref();
      this.#udp = socket;
    }
    this.#inFlight += 1;
    this.#udp.send(message, this.#options.port, this.#options.host, (error) => {
      this.#inFlight -= 1;
      if (error) this.#failed(error);
      else {
        this.#stats.sent += 1;
        this.#delivered();
      }
      this.#settle();
    });
  }

  #sendTcp(frame: string): void {
    if (this.#connected && this.#tcp) {
      this.#writeTcp(this.#tcp, frame);
      return;
    }
    if (this.#queue.length >= this.#maxBuffer) {
      this.#stats.dropped += 1;
      return;
    }
    this.#queue.push(frame);
    this.#connect();
  }

  #writeTcp(socket: Socket, frame: string): void {
    // Referenced while bytes are pending, so a process that is done still delivers its last lines.
    if (this.#inFlight === 0) socket.ref();
    this.#inFlight += 1;
    socket.write(frame, (error) => {
      this.#inFlight -= 1;
      if (error) this.#stats.dropped += 1;
      else this.#stats.sent += 1;
      if (this.#inFlight === 0 && !socket.destroyed) socket.unref();
      this.#settle();
    });
  }

  #connect(): void {
    if (this.#tcp || this.#reconnectTimer !== undefined) return;
    const socket = connect({ host: this.#options.host, port: this.#options.port });
    this.#tcp = socket;
    socket.setKeepAlive(true);
    socket.setTimeout(this.#options.connectTimeout ?? 10_000, () => {
      if (!this.#connected) socket.destroy(new Error(`connection to syslog at ${this.#where()} timed out`));
    });
    socket.on('connect', () => {
      socket.setTimeout(0);
      this.#connected = true;
      this.#attempt = 0;
      this.#stats.connects += 1;
      this.#delivered();
      for (const frame of this.#queue.splice(0)) this.#writeTcp(socket, frame);
      if (this.#inFlight === 0) socket.unref();
      this.#settle();
    });
    socket.on('error', (error) => this.#failed(error));
    socket.on('close', () => {
      if (this.#tcp === socket) this.#tcp = undefined;
      this.#connected = false;
      if (this.#queue.length > 0 && !this.#closing) this.#reconnectLater();
      this.#settle();
    });
  }

  #reconnectLater(): void {
    this.#attempt += 1;
    const delay = Math.min(100 * 2 ** (this.#attempt - 1), 30_000);
    // Unreferenced: a server that stays down must not keep a finished process alive.
    this.#reconnectTimer = this.#clock.setTimeout(
      () => {
        this.#reconnectTimer = undefined;
        this.#connect();
      },
      delay,
      { unref: true },
    );
  }

  #where(): string {
    return `${this.#options.protocol}://${this.#options.host}:${this.#options.port}`;
  }

  #failed(error: Error): void {
    this.#stats.errors += 1;
    if (this.#failing) return;
    this.#failing = true;
    this.#options.report?.(
      'warn',
      { transport: this.name, server: this.#where(), err: error },
      `syslog server ${this.#where()} is not taking messages`,
    );
  }

  #delivered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#options.report?.(
      'info',
      { transport: this.name, server: this.#where() },
      `syslog server ${this.#where()} takes messages again`,
    );
  }
}
