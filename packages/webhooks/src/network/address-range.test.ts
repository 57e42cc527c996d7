import { describe, expect, it } from 'vitest';
import { AddressPolicy, blockProblem } from './address-policy.js';
import { classifyAddress } from './address-range.js';
import { BlockedAddressError } from './blocked-address-error.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloudMetadata'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'cloudMetadata'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ])('%s is %s', (address, range) => {
    expect(classifyAddress(address).range).toBe(range);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
    ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
    ['::ffff:169.254.169.254', 'cloudMetadata', '169.254.169.254'],
    ['::ffff:0:10.0.0.1', 'private', '10.0.0.1'],
    ['64:ff9b::7f00:1', 'loopback', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'cloudMetadata', '169.254.169.254'],
    ['2002:7f00:1::1', 'loopback', '127.0.0.1'],
    ['2002:c0a8:101::', 'private', '192.168.1.1'],
    ['::127.0.0.1', 'loopback', '127.0.0.1'],
    ['::ffff:8.8.8.8', 'public', '8.8.8.8'],
    ['64:ff9b::808:808', 'public', '8.8.8.8'],
  ])('%s embeds %s address %s', (address, range, embedded) => {
    expect(classifyAddress(address)).toMatchObject({ range, embedded });
  });

  it('calls ordinary unicast addresses public, and refuses to read non-canonical text as an address', () => {
    expect(classifyAddress('8.8.8.8').range).toBe('public');
    expect(classifyAddress('2606:4700:4700::1111').range).toBe('public');
    // ipaddr.js alone would read these as 127.0.0.1; WHATWG URL canonicalises them before they get here.
    expect(classifyAddress('0x7f000001').range).toBe('invalid');
    expect(classifyAddress('127.1').range).toBe('invalid');
    expect(classifyAddress('2130706433').range).toBe('invalid');
  });
});

// Every cloud metadata or platform address the guard knows (sources beside the table in address-range.ts).
const METADATA_V4 = [
  '169.254.169.254', // IMDS of AWS, GCP, Azure, Oracle, DigitalOcean, Hetzner, OpenStack
  '168.63.129.16', // Azure WireServer: an ordinary public address to any range table
  '100.100.100.200', // Alibaba Cloud, inside CGNAT
  '192.0.0.192', // Oracle Cloud Infrastructure Classic, inside the IETF protocol block
  '100.96.0.96', // Volcano Engine, inside CGNAT
  '169.254.170.2', // AWS ECS task metadata and credentials
  '169.254.170.23', // AWS EKS Pod Identity Agent
  '169.254.169.123', // AWS Time Sync
  '169.254.169.253', // AWS Route 53 Resolver
];
const METADATA_V6 = ['fd00:ec2::254', 'fd00:ec2::23', 'fd00:ec2::123', 'fd00:ec2::253', 'fe80::a9fe:a9fe'];

/** The IPv6 forms that carry an IPv4 address to it: IPv4-mapped, SIIT, NAT64, 6to4, IPv4-compatible. */
function carriers(v4: string): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  return [
    `::ffff:${v4}`,
    `::ffff:${high}:${low}`,
    `::ffff:0:${v4}`,
    `64:ff9b::${v4}`,
    `64:ff9b::${high}:${low}`,
    `2002:${high}:${low}::1`,
    `::${v4}`,
  ];
}

describe('cloud metadata and platform addresses', () => {
  it.each([...METADATA_V4, ...METADATA_V6, 'fe80::a9fe:a9fe%eth0'])('%s is a cloud metadata address', (address) => {
    expect(classifyAddress(address).range).toBe('cloudMetadata');
  });

  it.each(METADATA_V4)('%s is one in every IPv6 form that carries it', (address) => {
    for (const carrier of carriers(address)) {
      expect(classifyAddress(carrier), carrier).toMatchObject({ range: 'cloudMetadata', embedded: address });
    }
  });

  it('is refused by default, with allowPrivateNetworks: true, and by any block that merely contains it', () => {
    const blocks = ['168.63.0.0/16', '100.64.0.0/10', '192.0.0.0/24', '169.254.0.0/16', 'fd00::/8', 'fe80::/10'];
    for (const policy of [new AddressPolicy(), new AddressPolicy(true), new AddressPolicy(blocks)]) {
      for (const address of [...METADATA_V4, ...METADATA_V6, ...METADATA_V4.flatMap(carriers)]) {
        expect(policy.check(address).allowed, address).toBe(false);
      }
    }
    // The blocks still let through what else they hold, and the addresses beside the services stay public.
    expect(new AddressPolicy(blocks).check('100.64.1.2').allowed).toBe(true);
    expect(new AddressPolicy(blocks).check('169.254.1.1').allowed).toBe(true);
    expect(new AddressPolicy().check('168.63.129.17').allowed).toBe(true);
    expect(new AddressPolicy().check('168.63.129.15').allowed).toBe(true);
  });

  it('is let through by an entry naming that very address, for a receiver that really is there', () => {
    const policy = new AddressPolicy(['168.63.129.16', '100.100.100.200/32', 'fd00:ec2::254/128']);
    expect(policy.check('168.63.129.16').allowed).toBe(true);
    expect(policy.check('::ffff:168.63.129.16').allowed).toBe(true);
    expect(policy.check('100.100.100.200').allowed).toBe(true);
    expect(policy.check('fd00:ec2::254').allowed).toBe(true);
    expect(policy.check('169.254.169.254').allowed).toBe(false);
  });

  it('says why in the refusal, and that allowPrivateNetworks: true does not lift it', () => {
    const refusal = new BlockedAddressError('wireserver.example', '168.63.129.16', 'cloudMetadata');
    expect(refusal.message).toBe(
      '168.63.129.16 is a cloud metadata or platform service address (wireserver.example resolves to it): outgoing ' +
        "requests may not reach internal networks; it holds the cloud's credentials and platform controls, so only " +
        'an allowPrivateNetworks entry naming this very address lets it through',
    );
  });
});

describe('AddressPolicy', () => {
  it('allows public addresses only, by default', () => {
    const policy = new AddressPolicy();
    expect(policy.check('8.8.8.8').allowed).toBe(true);
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '169.254.169.254', '::ffff:127.0.0.1', '100.64.0.1']) {
      expect(policy.check(address).allowed, address).toBe(false);
    }
  });

  it('allows internal ranges with true, but never metadata services, multicast, broadcast or unspecified', () => {
    const policy = new AddressPolicy(true);
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.7', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(policy.check(address).allowed, address).toBe(true);
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '224.0.0.1', '255.255.255.255', '0.0.0.0', '::']) {
      expect(policy.check(address).allowed, address).toBe(false);
    }
  });

  it('allows only the listed blocks with a list, the embedded IPv4 address included', () => {
    const policy = new AddressPolicy(['127.0.0.1', '10.20.0.0/16', '169.254.169.254/32']);
    expect(policy.check('127.0.0.1').allowed).toBe(true);
    expect(policy.check('::ffff:127.0.0.1').allowed).toBe(true);
    expect(policy.check('127.0.0.2').allowed).toBe(false);
    expect(policy.check('10.20.3.4').allowed).toBe(true);
    expect(policy.check('10.21.3.4').allowed).toBe(false);
    expect(policy.check('169.254.169.254').allowed).toBe(true);
    expect(policy.check('8.8.8.8').allowed).toBe(true);
  });

  it('refuses malformed blocks with a reason', () => {
    expect(blockProblem('10.0.0.0/8')).toBeUndefined();
    expect(blockProblem('fd00::/8')).toBeUndefined();
    expect(blockProblem('127.1')).toMatch(/not an IP address or a CIDR block/);
    expect(blockProblem('10.0.0.0/33')).toMatch(/not an IP address or a CIDR block/);
    expect(blockProblem('intranet')).toMatch(/not an IP address or a CIDR block/);
  });
});
