import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where an IP address points, as far as an outgoing request is concerned: `public` for an ordinary unicast address
 * on the internet, otherwise the name of the special range it falls in (`loopback`, `private`, `linkLocal`,
 * `cloudMetadata`, `carrierGradeNat`, `uniqueLocal`, `multicast`...). An address that embeds an IPv4 address
 * (IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) is classified by the IPv4 address it carries, since that is where the packets end up.
 */
export interface AddressClass {
  /** The address as classified (an embedded IPv4 address is reported in `embedded`). */
  address: string;
  /** `public`, or the special range's name. */
  range: string;
  /** The IPv4 address an IPv6 address embeds, when the classification is that address's. */
  embedded?: string;
}

/**
 * Addresses where a cloud serves its instances credentials, configuration or platform services: never a webhook
 * receiver, and what a forged request inside a cloud goes for. Several are ordinary public or special-purpose
 * addresses to any range table (168.63.129.16 is public, 100.100.100.200 is in CGNAT, 192.0.0.192 in the IETF
 * protocol block), so they are listed one by one, with where each provider documents it.
 */
const CLOUD_METADATA = new Set([
  // Instance metadata (IMDS) of AWS, GCP (metadata.google.internal), Azure, Oracle Cloud, DigitalOcean, Hetzner
  // Cloud, OpenStack and most others, and AWS's IPv6 one on Nitro instances:
  // https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html
  // https://cloud.google.com/compute/docs/metadata/querying-metadata
  // https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service
  // https://docs.oracle.com/en-us/iaas/Content/Compute/Tasks/gettingmetadata.htm
  // https://docs.digitalocean.com/reference/api/metadata/
  // https://docs.hetzner.cloud/#server-metadata
  '169.254.169.254',
  'fd00:ec2::254',
  // OpenStack's metadata service over IPv6 (Nova, since Victoria):
  // https://docs.openstack.org/nova/latest/admin/metadata-service.html
  'fe80::a9fe:a9fe',
  // Azure's WireServer (platform agent, DNS, health probes), reachable from every Azure VM:
  // https://learn.microsoft.com/en-us/azure/virtual-network/what-is-ip-address-168-63-129-16
  '168.63.129.16',
  // Alibaba Cloud ECS instance metadata: https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata
  '100.100.100.200',
  // Oracle Cloud Infrastructure Classic instance metadata:
  // https://docs.oracle.com/en/cloud/iaas-classic/compute-iaas-cloud/stcsg/retrieving-instance-metadata.html
  '192.0.0.192',
  // Volcano Engine ECS instance metadata: https://www.volcengine.com/docs/6396/113780
  '100.96.0.96',
  // AWS ECS task metadata and container credentials:
  // https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-metadata-endpoint-v2.html
  '169.254.170.2',
  // AWS EKS Pod Identity Agent, which hands pods their IAM credentials:
  // https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html
  '169.254.170.23',
  'fd00:ec2::23',
  // AWS Amazon Time Sync Service: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configure-ec2-ntp.html
  '169.254.169.123',
  'fd00:ec2::123',
  // AWS Route 53 Resolver (the VPC's DNS): https://docs.aws.amazon.com/vpc/latest/userguide/AmazonDNS-concepts.html
  '169.254.169.253',
  'fd00:ec2::253',
]);

/**
 * Classifies `address` (an IPv4 or IPv6 address in any form `net.isIP` accepts; an IPv6 zone is ignored). A string
 * that is not an IP address is classified `invalid`.
 *
 * @example
 * ```ts
 * classifyAddress('::ffff:127.0.0.1'); // {address: '::ffff:7f00:1', range: 'loopback', embedded: '127.0.0.1'}
 * classifyAddress('8.8.8.8');          // {address: '8.8.8.8', range: 'public'}
 * ```
 */
export function classifyAddress(address: string): AddressClass {
  // ipaddr.js also reads "0x7f.1" or "2130706433" as addresses; only canonical text (what DNS and WHATWG URL hand
  // over) is an address here, so the two parsers never disagree about what is being checked.
  if (isIP(address) === 0) return { address, range: 'invalid' };
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const shown = v6.toString();
  // Compared without a zone (`fe80::a9fe:a9fe%eth0` is the same service on whichever interface).
  if (CLOUD_METADATA.has(new ipaddr.IPv6(v6.parts).toString())) return { address: shown, range: 'cloudMetadata' };
  const words = v6.parts;
  const range = v6.range();
  const embedded = embeddedV4(words, range);
  if (embedded === 'blocked') return { address: shown, range };
  if (embedded) {
    const inner = classifyV4(embedded);
    return { address: shown, range: inner.range, embedded: inner.address };
  }
  if (range === 'unicast') return { address: shown, range: 'public' };
  return { address: shown, range };
}

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  const address = v4.toString();
  if (CLOUD_METADATA.has(address)) return { address, range: 'cloudMetadata' };
  const range = v4.range();
  return { address, range: range === 'unicast' ? 'public' : range };
}

/**
 * The IPv4 address an IPv6 address carries where packets to it reach that IPv4 address; `blocked` for a translation
 * range whose embedding cannot be read reliably (Teredo obfuscates its client address, local-use NAT64 prefixes
 * vary in length).
 */
function embeddedV4(parts: number[], range: string): ipaddr.IPv4 | 'blocked' | undefined {
  const words = Array.from({ length: 8 }, (_, i) => parts[i] ?? 0);
  const v4 = (high: number, low: number) =>
    new ipaddr.IPv4([
      (words[high] ?? 0) >> 8,
      (words[high] ?? 0) & 0xff,
      (words[low] ?? 0) >> 8,
      (words[low] ?? 0) & 0xff,
    ]);
  const low32 = (): ipaddr.IPv4 => v4(6, 7);
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (SIIT)
      return low32();
    case 'rfc6052': // 64:ff9b::a.b.c.d; 64:ff9b:1::/48 is local use with a prefix length of the operator's choice
      return words[2] === 0 && words[3] === 0 && words[4] === 0 && words[5] === 0 ? low32() : 'blocked';
    case '6to4': // 2002:aabb:ccdd::/48
      return v4(1, 2);
    case 'teredo':
      return 'blocked';
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, still routed as IPv4 by some stacks); :: and ::1 have ranges of their own.
      if (range === 'unicast' && words.slice(0, 6).every((word) => word === 0)) return low32();
      return undefined;
  }
}
