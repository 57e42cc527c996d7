import type { Server } from 'node:net';
import { clientKey } from './client-address.js';

/** What {@link guardConnections} reports when an address reaches its cap. */
export interface RefusedConnections {
  /** The client address, as counted ({@link clientKey}). */
  address: string;
  /** The cap it reached. */
  max: number;
}

/**
 * Caps the connections one client address holds open on `server` at `maxPerAddress`: a connection past the cap is
 * destroyed as soon as it is accepted, before a byte of it is read, so a client that opens connections and sends
 * nothing (or a request's first bytes and nothing more) holds at most `maxPerAddress` of them, whatever it opens.
 * `onCapReached` is called once each time an address reaches the cap (not for every connection refused after that,
 * which an attacker decides the number of), and again only after one of its connections has closed.
 *
 * Counts live in a map keyed by address that holds only addresses with a connection open.
 */
export function guardConnections(
  server: Server,
  maxPerAddress: number,
  onCapReached: (refused: RefusedConnections) => void = () => {},
): void {
  if (maxPerAddress <= 0) return;
  const open = new Map<string, { count: number; reported: boolean }>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    // An address is known for every TCP connection; none means the socket is already gone.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = clientKey(address);
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
