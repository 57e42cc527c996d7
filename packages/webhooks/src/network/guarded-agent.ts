import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { AddressPolicy, type PrivateNetworkAllowance } from './address-policy.js';
import { BlockedAddressError } from './blocked-address-error.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (default: the system resolver, `/etc/hosts` included). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`dns.lookup` with `all`, in the order the system gives). */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, order: 'verbatim' })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** Options of {@link createGuardedAgent}. */
export interface GuardedAgentOptions {
  /** Which internal addresses may be reached (default none; see {@link PrivateNetworkAllowance}). */
  allowPrivateNetworks?: PrivateNetworkAllowance;
  /** How host names are resolved (tests map names to addresses). */
  resolve?: HostResolver;
  /** Most connections per origin (default 16). */
  connections?: number;
  /** How long an idle connection is kept, in ms (default 30 s). */
  keepAliveTimeout?: number;
  /** How long a connection may take to open, in ms (default 10 s). */
  connectTimeout?: number;
  /** Verify TLS certificates (default true). */
  rejectUnauthorized?: boolean;
}

/**
 * An undici `Agent` that refuses to connect to internal networks: before each connection it resolves the host
 * (literal addresses included), checks every address against the policy and refuses the connection if any is
 * internal, then connects to an address it checked, so a DNS answer that changes between the check and the
 * connection (DNS rebinding) cannot send the request elsewhere. TLS still verifies the certificate against the host
 * name. A refusal fails the request with a {@link BlockedAddressError} before any byte is sent.
 *
 * Redirects are not followed by undici's `request` with this agent (nothing here follows them); a caller that follows
 * one by hand gets the next host checked the same way.
 *
 * @example
 * ```ts
 * const agent = createGuardedAgent();
 * await request('http://169.254.169.254/latest/meta-data/', { dispatcher: agent }); // rejects: BlockedAddressError
 * ```
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  const policy = new AddressPolicy(options.allowPrivateNetworks ?? false);
  const resolve = options.resolve ?? systemResolver;
  const connector = buildConnector({
    rejectUnauthorized: options.rejectUnauthorized ?? true,
    timeout: options.connectTimeout ?? 10_000,
  });
  return new Agent({
    connections: options.connections ?? 16,
    keepAliveTimeout: options.keepAliveTimeout ?? 30_000,
    connect(connectOptions, callback) {
      checkedAddresses(connectOptions.hostname, policy, resolve).then(
        (addresses) => connectToFirst(connector, connectOptions, addresses, callback),
        (error: unknown) => callback(error as Error, null),
      );
    },
  });
}

/**
 * Every address `hostname` stands for, each allowed by `policy`; rejects with a {@link BlockedAddressError} naming
 * the first refused one. A literal address is checked as it is (WHATWG URL has already turned `0x7f000001` or
 * `127.1` into `127.0.0.1`).
 */
export async function checkedAddresses(
  hostname: string,
  policy: AddressPolicy,
  resolve: HostResolver = systemResolver,
): Promise<string[]> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = isIP(host) !== 0 ? [host] : (await resolve(host)).map((entry) => entry.address);
  if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
  for (const address of addresses) {
    const verdict = policy.check(address);
    if (!verdict.allowed) throw new BlockedAddressError(host, address, verdict.class.range);
  }
  return addresses;
}

function connectToFirst(
  connector: buildConnector.connector,
  options: buildConnector.Options,
  addresses: string[],
  callback: buildConnector.Callback,
  index = 0,
): void {
  // `host` keeps the name: undici derives the TLS server name (SNI, certificate check) from it.
  connector({ ...options, hostname: addresses[index] as string }, (error, socket) => {
    if (error && index + 1 < addresses.length) {
      connectToFirst(connector, options, addresses, callback, index + 1);
      return;
    }
    if (error) callback(error, null);
    else callback(null, socket as NonNullable<typeof socket>);
  });
}
