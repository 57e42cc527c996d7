import { ThreatlibError } from '@threatlib/core';

/**
 * Thrown (as the connection's error) when a request would reach an address the network policy refuses: a loopback,
 * private, link-local or otherwise internal address, a cloud metadata service, or a host any of whose resolved
 * addresses is one. No connection was opened and no byte was sent. Never retryable: the address will not change its
 * range.
 */
export class BlockedAddressError extends ThreatlibError {
  /** The host as the URL names it. */
  readonly host: string;
  /** The address refused (a resolved one, or the host itself when it is an address). */
  readonly address: string;
  /** The range it is in (`loopback`, `private`, `linkLocal`, `cloudMetadata`...). */
  readonly range: string;
  readonly isRetryable = false;

  constructor(host: string, address: string, range: string) {
    const via = host === address ? '' : ` (${host} resolves to it)`;
    const remedy =
      range === 'cloudMetadata'
        ? "it holds the cloud's credentials and platform controls, so only an allowPrivateNetworks entry naming this very address lets it through"
        : 'allow it with allowPrivateNetworks';
    super(
      'ADDRESS_BLOCKED',
      `${address} is a ${describeRange(range)} address${via}: outgoing requests may not reach internal networks; ${remedy}`,
    );
    this.name = 'BlockedAddressError';
    this.host = host;
    this.address = address;
    this.range = range;
  }

  /** Whether `error`, or an error in its `cause` chain, is a {@link BlockedAddressError} from any copy of the package. */
  static override isInstance(error: unknown): error is BlockedAddressError {
    return ThreatlibError.hasCode(error, 'ADDRESS_BLOCKED');
  }

  /** The {@link BlockedAddressError} in `error`'s `cause` chain, if any. */
  static find(error: unknown): BlockedAddressError | undefined {
    for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
      if (BlockedAddressError.isInstance(current)) return current;
      current = (current as { cause?: unknown }).cause;
    }
    return undefined;
  }
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  linkLocal: 'link-local',
  cloudMetadata: 'cloud metadata or platform service',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  uniqueLocal: 'unique-local IPv6 (fc00::/7)',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
  teredo: 'Teredo (2001::/32)',
  rfc6052: 'NAT64 local-use',
  invalid: 'malformed',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? `special-purpose (${range})`;
}
