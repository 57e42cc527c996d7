// What the benchmarks share: whether a server is up, and how figures are printed.
import { connect } from 'node:net';

/** Whether something accepts a TCP connection at `port` on `host` (within a second). */
export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

/** Whether the server of `url` (its host and port, or `defaultPort`) accepts a TCP connection. */
export function urlOpen(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return portOpen(Number(port || defaultPort), hostname);
}

/** A whole number with thousands separators: 12,345. */
export const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
