// AlienVault OTX DirectConnect API v1, as the official SDK (AlienVault-OTX/OTX-Python-SDK) and recorded answers
// (demisto/content AlienVault_OTX_v2 tests) show it; sources are listed in packages/core/src/feeds/otx.ts.
// GET /indicators/{section}/{value}/{section name}; the key travels in `X-OTX-API-KEY`; errors are Django REST
// framework bodies ({"detail": …}) except gateway failures, which are nginx HTML pages.
import { isIPv4, isIPv6 } from 'node:net';
import type { EmulatorRequest, EmulatorResponse, Routed, VendorApi } from '../vendor-api.js';

// The sections each indicator type has, as OTX lists them in `sections`; only `general` is emulated.
const SECTIONS: Readonly<Record<string, readonly string[]>> = {
  IPv4: ['general', 'reputation', 'geo', 'malware', 'url_list', 'passive_dns', 'http_scans', 'nids_list'],
  IPv6: ['general', 'reputation', 'geo', 'malware', 'url_list', 'passive_dns'],
  domain: ['general', 'geo', 'malware', 'url_list', 'passive_dns', 'whois', 'http_scans'],
  hostname: ['general', 'geo', 'malware', 'url_list', 'passive_dns', 'http_scans'],
  url: ['general', 'url_list', 'http_scans', 'screenshot'],
  file: ['general', 'analysis'],
};

const AUTHOR = {
  username: 'AlienVault',
  id: '2',
  avatar_url: 'https://otx20-web-media.s3.amazonaws.com/media/avatars/user_2/resized/80/avatar_3b9c358f36.png',
  is_subscribed: false,
  is_following: false,
};

/** The OTX indicator API: the `general` section of IPv4, IPv6, domain, hostname, url and file indicators. */
export const otx: VendorApi = {
  feed: 'feed_otx',
  prefix: '/otx/api/v1',
  requiresKey: true,
  // The newest pulse was modified on 2024-02-10 06:40 UTC, "1 day ago" as the answer says.
  recordedAt: Date.parse('2024-02-11T07:00:00Z'),
  key: (request) => header(request, 'x-otx-api-key'),
  route(request) {
    const match = /^\/indicators\/([^/]+)\/(.+)\/([^/]+)\/?$/.exec(request.path);
    if (!match) return notFound();
    const [, section = '', encoded = '', part = ''] = match;
    // Other sections exist (SECTIONS) but are not emulated; the adapter only asks for `general`.
    if (!SECTIONS[section] || part !== 'general') return notFound();
    if (request.method !== 'GET') {
      return { response: { status: 405, body: { detail: `Method "${request.method}" not allowed.` } } };
    }
    let value: string;
    try {
      // OTX decodes the path, so an encoded URL (`http%3A%2F%2F…`) and a raw one reach it the same way.
      value = decodeURIComponent(encoded);
    } catch {
      return invalid(section);
    }
    return valid(section, value) ? { indicator: value } : invalid(section);
  },
  respond(behaviour, indicator, request) {
    const section = /^\/indicators\/([^/]+)\//.exec(request.path)?.[1] ?? 'IPv4';
    switch (behaviour) {
      case 'malicious':
        return ok(general(section, indicator, maliciousPulses(indicator), 7));
      case 'suspicious':
        return ok(
          general(
            section,
            indicator,
            [pulse(indicator, 0, 'Scanning hosts seen by honeypots', '', [], ['scanner', 'honeypot'])],
            2,
          ),
        );
      case 'clean':
        return ok(general(section, indicator, [], 0, [validationFor(section, indicator)]));
      // OTX answers a well-formed indicator it has nothing on with the usual body and no pulses.
      case 'not_found':
        return ok(general(section, indicator, [], 0));
      case 'unauthorized':
        return {
          status: 403,
          body: {
            detail: header(request, 'x-otx-api-key')
              ? 'Invalid API key.'
              : 'Authentication credentials were not provided.',
          },
        };
      case 'forbidden':
        return { status: 403, body: { detail: 'You do not have permission to perform this action.' } };
      case 'rate_limited':
        return {
          status: 429,
          headers: { 'retry-after': '60' },
          body: { detail: 'Request was throttled. Expected available in 60 seconds.' },
        };
      case 'server_error':
        return { status: 504, headers: { 'content-type': 'text/html' }, body: GATEWAY_TIMEOUT_PAGE };
      case 'wrong_shape':
        return ok({ indicator, type: section, pulse_info: { count: 'several', pulses: { name: 'x' } } });
    }
  },
};

function general(
  section: string,
  indicator: string,
  pulses: Record<string, unknown>[],
  count: number,
  validation: Record<string, string>[] = [],
): Record<string, unknown> {
  return {
    whois: `http://whois.domaintools.com/${indicator}`,
    reputation: 0,
    indicator,
    type: section,
    type_title: section === 'file' ? 'FileHash-SHA256' : section === 'url' ? 'URL' : section,
    base_indicator: {},
    pulse_info: {
      count,
      pulses,
      references: pulses.length > 0 ? ['https://blog.example-research.org/2024/02/mirai-variant-analysis/'] : [],
      related: {
        alienvault: { adversary: [], malware_families: [], industries: [] },
        other: { adversary: [], malware_families: [], industries: [] },
      },
    },
    false_positive: [],
    validation,
    sections: SECTIONS[section] ?? ['general'],
  };
}

function maliciousPulses(indicator: string): Record<string, unknown>[] {
  return [
    pulse(
      indicator,
      0,
      'Mirai botnet C2 infrastructure',
      'TA505',
      [{ id: 'Mirai', display_name: 'Mirai', target: null }],
      ['botnet', 'c2', 'mirai'],
    ),
    pulse(
      indicator,
      1,
      'Emotet epoch 5 distribution',
      '',
      [{ id: 'Emotet', display_name: 'Emotet', target: null }],
      ['botnet', 'c2', 'emotet'],
    ),
    pulse(indicator, 2, 'Webscanners 2024-02', '', [], ['scanner']),
  ];
}

function pulse(
  indicator: string,
  index: number,
  name: string,
  adversary: string,
  families: Record<string, unknown>[],
  tags: string[],
): Record<string, unknown> {
  const created = ['2023-11-02T08:14:51.412000', '2024-01-15T19:03:27.118000', '2024-02-01T00:00:09.873000'][index];
  const modified = ['2024-02-08T10:00:00.000000', '2024-02-09T12:31:44.204000', '2024-02-10T06:40:12.650000'][index];
  return {
    id: ['6543a1fb2c1d9f0a1b2c3d4e', '65a582efc1d2e3f4a5b6c7d8', '65badd09aa11bb22cc33dd44'][index],
    name,
    description: `Indicators including ${indicator}.`,
    modified,
    created,
    tags,
    references: index === 0 ? ['https://blog.example-research.org/2024/02/mirai-variant-analysis/', 'honeypot'] : [],
    public: 1,
    adversary,
    targeted_countries: [],
    malware_families: families,
    attack_ids: [
      { id: 'T1071', name: 'Application Layer Protocol', display_name: 'T1071 - Application Layer Protocol' },
    ],
    industries: [],
    TLP: 'white',
    cloned_from: null,
    export_count: 12,
    upvotes_count: 0,
    downvotes_count: 0,
    votes_count: 0,
    locked: false,
    pulse_source: 'web',
    validator_count: 0,
    comment_count: 0,
    follower_count: 0,
    vote: 0,
    author: AUTHOR,
    indicator_type_counts: { IPv4: 120, domain: 14 },
    indicator_count: 134,
    is_author: false,
    is_subscribing: null,
    subscriber_count: 230000,
    modified_text: '1 day ago ',
    is_modified: true,
    groups: [],
    in_group: false,
    threat_hunter_scannable: true,
    threat_hunter_has_agents: 1,
    related_indicator_type: 'IPv4',
    related_indicator_is_active: 1,
  };
}

/** An allowlist entry as OTX writes it for IPs ("contained in whitelisted prefix") and for domains. */
function validationFor(section: string, indicator: string): Record<string, string> {
  if (section === 'IPv4' || section === 'IPv6') {
    return { source: 'whitelist', message: 'contained in whitelisted prefix', name: 'Whitelisted IP' };
  }
  if (section === 'domain' || section === 'hostname') {
    return { source: 'whitelist', message: `Whitelisted domain ${indicator}`, name: 'Whitelisted domain' };
  }
  const what = section === 'file' ? 'file' : 'URL';
  return { source: 'whitelist', message: `Whitelisted ${what} ${indicator}`, name: `Whitelisted ${what}` };
}

/** Whether OTX would take `value` as an indicator of `section`. */
function valid(section: string, value: string): boolean {
  switch (section) {
    case 'IPv4':
      return isIPv4(value);
    case 'IPv6':
      return isIPv6(value);
    case 'domain':
    case 'hostname':
      return /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z][a-z0-9-]{0,62}$/i.test(value);
    case 'url':
      return /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+/i.test(value);
    case 'file':
      return /^([0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value);
    default:
      return false;
  }
}

function notFound(): Routed {
  return { response: { status: 404, body: { detail: 'Not found.' } } };
}

function invalid(section: string): Routed {
  return { response: { status: 400, body: { detail: `Invalid ${section} indicator.` } } };
}

function ok(body: Record<string, unknown>): EmulatorResponse {
  return { status: 200, body };
}

function header(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const GATEWAY_TIMEOUT_PAGE =
  '<html>\n<head><title>504 Gateway Time-out</title></head>\n<body>\n<center><h1>504 Gateway Time-out</h1></center>\n</body>\n</html>\n';
