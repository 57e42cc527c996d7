import { normalizeIP } from '@fastify/rate-limit';

/**
 * The key under which a client address is counted: the same one `@fastify/rate-limit` counts requests under (IPv4
 * as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, as one host can rotate through its /64 at will), so the
 * request limit, the failed-authentication limit and the connection cap all see the same client.
 */
export function clientKey(address: string): string {
  return normalizeIP(address);
}

/** The key of each socket's address, made on its first request: a keep-alive connection's address does not change. */
const SOCKET_KEYS = new WeakMap<object, { address: string; key: string }>();

/**
 * {@link clientKey} of a request's address, parsed once per connection rather than once per request (an IPv6
 * address is parsed into objects to find its /64). Keyed by the socket and checked against the address, so a
 * request whose address is not its socket's (behind a trusted proxy) gets its own.
 */
export function requestClientKey(request: { readonly ip: string; readonly raw: { readonly socket?: object } }): string {
  const address = request.ip;
  const socket = request.raw.socket;
  const known = socket === undefined ? undefined : SOCKET_KEYS.get(socket);
  if (known !== undefined && known.address === address) return known.key;
  const key = clientKey(address);
  if (socket !== undefined) SOCKET_KEYS.set(socket, { address, key });
  return key;
}
