import { normalizeIP } from '@fastify/rate-limit';

/**
 * The key under which a client address is counted: the same one `@fastify/rate-limit` counts requests under (IPv4
 * as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, as one host can rotate through its /64 at will), so the
 * request limit, the failed-authentication limit and the connection cap all see the same client.
 */
export function clientKey(address: string): string {
  return normalizeIP(address);
}
