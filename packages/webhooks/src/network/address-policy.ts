import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type AddressClass, classifyAddress } from './address-range.js';

/**
 * Which addresses outgoing requests may reach. `false` (the default): public unicast addresses only. `true`: also
 * loopback, private, link-local, CGNAT, unique-local and reserved ranges, for receivers inside your own network;
 * never the unspecified address, broadcast, multicast or a cloud metadata or platform service. A list of CIDR blocks
 * or addresses (`['10.20.0.0/16', '127.0.0.1']`): public addresses and those blocks only, whatever range they are
 * in, except that a cloud metadata or platform service (169.254.169.254, Azure's 168.63.129.16, Alibaba's
 * 100.100.100.200 inside 100.64.0.0/10...) is let through only by an entry naming that very address, never by a
 * block that merely contains it.
 */
export type PrivateNetworkAllowance = boolean | readonly string[];

/** Ranges `allowPrivateNetworks: true` still refuses: no receiver lives there, or only credentials do. */
const NEVER_ALLOWED = new Set(['invalid', 'unspecified', 'broadcast', 'multicast', 'cloudMetadata']);

/** What {@link AddressPolicy.check} decided about one address. */
export type AddressVerdict = { allowed: true; class: AddressClass } | { allowed: false; class: AddressClass };

/**
 * Decides whether an address may be connected to. Made once from the options and asked for every address a
 * delivery resolves to.
 *
 * @throws {TypeError} from the constructor when an entry of the allowance is neither an address nor a CIDR block.
 */
export class AddressPolicy {
  readonly #allowance: PrivateNetworkAllowance;
  readonly #blocks: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  constructor(allowPrivateNetworks: PrivateNetworkAllowance = false) {
    this.#allowance = allowPrivateNetworks;
    this.#blocks = typeof allowPrivateNetworks === 'boolean' ? [] : allowPrivateNetworks.map(parseBlock);
  }

  /** Whether `address` (canonical IPv4 or IPv6 text) may be connected to, with its classification. */
  check(address: string): AddressVerdict {
    const found = classifyAddress(address);
    if (found.range === 'public') return { allowed: true, class: found };
    if (found.range === 'invalid') return { allowed: false, class: found };
    if (this.#allowance === true) return { allowed: !NEVER_ALLOWED.has(found.range), class: found };
    if (this.#blocks.length === 0) return { allowed: false, class: found };
    const candidates = [ipaddr.parse(found.address), ...(found.embedded ? [ipaddr.parse(found.embedded)] : [])];
    // Allowing the CGNAT range (a tailnet, say) must not also allow Alibaba's metadata service inside it.
    const exactOnly = found.range === 'cloudMetadata';
    const listed = candidates.some((candidate) =>
      this.#blocks.some(
        ([block, bits]) =>
          candidate.kind() === block.kind() &&
          candidate.match(block, bits) &&
          (!exactOnly || bits === (block.kind() === 'ipv4' ? 32 : 128)),
      ),
    );
    return { allowed: listed, class: found };
  }
}

/**
 * Whether `entry` is an address or CIDR block {@link AddressPolicy} accepts in its allowance; the reason when not.
 */
export function blockProblem(entry: string): string | undefined {
  try {
    parseBlock(entry);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function parseBlock(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const text = entry.trim();
  const [address = '', bits, ...rest] = text.split('/');
  // Canonical addresses only (`net.isIP`): "127.1" or "0x7f000001" would mean something else to someone else.
  if (isIP(address) === 0 || rest.length > 0 || (bits !== undefined && !ipaddr.isValidCIDR(text))) {
    throw new TypeError(`"${entry}" is not an IP address or a CIDR block such as 10.20.0.0/16`);
  }
  if (bits !== undefined) return ipaddr.parseCIDR(text);
  const parsed = ipaddr.parse(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}
