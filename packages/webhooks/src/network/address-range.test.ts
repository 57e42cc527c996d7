import { describe, expect, it } from 'vitest';
import { AddressPolicy, blockProblem } from './address-policy.js';
import { classifyAddress } from './address-range.js';

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
