import type { Server } from 'node:net';

/** What {@link guardConnections} reports when an address reaches its cap. */
export interface RefusedConnections {
  /** The client address, as counted (its `key`). */
  address: string;
  /** The cap it reached. */
  max: number;
}

/** Options of {@link guardConnections}. */
export interface ConnectionGuardOptions {
  /** Connections one client may hold open at once; `0` lifts the cap. */
  maxPerAddress: number;
  /**
   * The key a client address is counted under. Give the one the server's request limit counts by (for
   * `@fastify/rate-limit`, its `normalizeIP`: IPv4-mapped IPv6 as IPv4, IPv6 per /64, as one host can rotate
   * through its /64 at will), so that the connection cap and the request limit see the same client.
   */
  key: (address: string) => string;
  /**
   * Called once each time a client reaches the cap (not for every connection refused after that, whose number an
   * attacker decides), and again only after one of its connections has closed.
   */
  onCapReached?: (refused: RefusedConnections) => void;
}

/**
 * Caps the connections one client holds open on `server`: a connection past the cap is destroyed as soon as it is
 * accepted, before a byte of it is read, so a client that opens connections and sends nothing (or a request's first
 * bytes and nothing more) holds at most `maxPerAddress` of them, whatever it opens. Counts live in a map that holds
 * only clients with a connection open.
 *
 * @example
 * ```ts
 * import { normalizeIP } from '@fastify/rate-limit';
 * guardConnections(app.server, { maxPerAddress: 64, key: normalizeIP, onCapReached: ({ address }) => log(address) });
 * ```
 */
export function guardConnections(server: Server, options: ConnectionGuardOptions): void {
  const { maxPerAddress, key: keyOf, onCapReached = () => {} } = options;
  if (maxPerAddress <= 0) return;
  const open = new Map<string, { count: number; reported: boolean }>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    // An address is known for every TCP connection; none means the socket is already gone.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = keyOf(address);
    let entry = open.get(key);
    if (entry && entry.count >= maxPerAddress) {
      socket.destroy();
      if (!entry.reported) {
        entry.reported = true;
        onCapReached({ address: key, max: maxPerAddress });
      }
      return;
    }
    if (!entry) {
      entry = { count: 0, reported: false };
      open.set(key, entry);
    }
    entry.count++;
    const counted = entry;
    socket.once('close', () => {
      counted.count--;
      counted.reported = false;
      if (counted.count === 0 && open.get(key) === counted) open.delete(key);
    });
  });
}
