// URLhaus API v1 (abuse.ch), as documented on urlhaus-api.abuse.ch and observed by the clients listed in
// packages/core/src/feeds/urlhaus.ts: POST /host/, /url/, /payload/ with form fields, the `Auth-Key` header, and every
// answer (refusals included) carrying `query_status`. Bodies below follow recorded answers (numbers as strings,
// `tags: null`, dates "YYYY-MM-DD HH:MM:SS UTC").
import { isIPv4 } from 'node:net';
import type { EmulatorRequest, EmulatorResponse, Routed, VendorApi } from '../vendor-api.js';

type Endpoint = 'host' | 'url' | 'payload';

const REPORTER = 'abuse_ch';
const FIRST_SEEN = '2024-02-09 13:41:05 UTC';
const ADDED = '2024-02-09 13:43:18 UTC';
const OFFLINE_ADDED = '2024-01-17 08:02:41 UTC';
const LAST_ONLINE = '2024-01-19 21:15:09 UTC';
const SHA256_OF_SAMPLE = '0c415dd718e3b3728707d579cf8214f54c2942e964975a5f925e0b82fea644b4';
const MD5_OF_SAMPLE = '99ad3000abb169e60844a0689dbe9f8c';

/** The URLhaus API: `query_status` answers to form posts, refusals included. */
export const urlhaus: VendorApi = {
  feed: 'feed_urls',
  prefix: '/urlhaus/v1',
  requiresKey: false,
  // The newest sighting (a payload's lastseen) is from 2024-02-10 08:01 UTC.
  recordedAt: Date.parse('2024-02-11T07:00:00Z'),
  key: (request) => header(request, 'auth-key'),
  route(request) {
    const endpoint = endpointOf(request.path);
    if (!endpoint) return { response: { status: 404, headers: { 'content-type': 'text/html' }, body: NOT_FOUND_PAGE } };
    // URLhaus answers a GET to a POST endpoint with its own status (HTTP 405 per clients that met it).
    if (request.method !== 'POST') return refuse('http_post_expected', 405);
    const form = formOf(request);
    return routeForm(endpoint, form);
  },
  respond(behaviour, indicator, request) {
    const endpoint = endpointOf(request.path) ?? 'host';
    switch (behaviour) {
      case 'malicious':
        return ok(known(endpoint, indicator, true));
      // URLhaus has no "suspicious": the closest it says is "known, but every URL is offline now".
      case 'suspicious':
        return ok(known(endpoint, indicator, false));
      // URLhaus never says clean; an indicator it has nothing on is `no_results`.
      case 'clean':
      case 'not_found':
        return ok({ query_status: 'no_results' });
      case 'unauthorized':
        // abuse.ch answers an unknown key with 403 + unknown_auth_key and a request without a key with 401.
        return {
          status: header(request, 'auth-key') ? 403 : 401,
          body: { query_status: 'unknown_auth_key' },
        };
      case 'forbidden':
        return { status: 403, headers: { 'content-type': 'text/html' }, body: FORBIDDEN_PAGE };
      case 'rate_limited':
        return {
          status: 429,
          headers: { 'content-type': 'text/plain', 'retry-after': '60' },
          body: 'Too Many Requests',
        };
      case 'server_error':
        return { status: 500, headers: { 'content-type': 'text/html' }, body: SERVER_ERROR_PAGE };
      case 'wrong_shape':
        return ok(wrongShape(endpoint));
    }
  },
};

function routeForm(endpoint: Endpoint, form: URLSearchParams): Routed {
  if (endpoint === 'host') {
    const host = (form.get('host') ?? '').trim().toLowerCase();
    // The API takes "an IPv4 address, hostname or domain name"; an IPv6 address or junk is invalid_host.
    return isIPv4(host) || HOSTNAME.test(host) ? { indicator: host } : refuse('invalid_host');
  }
  if (endpoint === 'url') {
    const url = (form.get('url') ?? '').trim();
    return /^(https?|ftp):\/\/[^\s/?#]+/i.test(url) ? { indicator: url } : refuse('invalid_url');
  }
  const md5 = form.get('md5_hash');
  const sha256 = form.get('sha256_hash');
  if (sha256 !== null)
    return /^[0-9a-f]{64}$/i.test(sha256) ? { indicator: sha256.toLowerCase() } : refuse('invalid_sha256');
  // Without either field the hash checked is the (missing) MD5.
  return md5 !== null && /^[0-9a-f]{32}$/i.test(md5) ? { indicator: md5.toLowerCase() } : refuse('invalid_md5');
}

function known(endpoint: Endpoint, indicator: string, online: boolean): Record<string, unknown> {
  if (endpoint === 'host') return hostBody(indicator, online);
  if (endpoint === 'url') return urlBody(indicator, online);
  return payloadBody(indicator);
}

function hostBody(host: string, online: boolean): Record<string, unknown> {
  const urls = online
    ? [
        hostUrl('2758916', `http://${host}/bins/mozi.m`, 'online', ADDED, ['elf', 'Mozi']),
        hostUrl('2758913', `http://${host}/bins/mozi.a`, 'offline', '2024-02-09 13:43:10 UTC', null),
      ]
    : [
        hostUrl('2712001', `http://${host}/invoice.zip`, 'offline', OFFLINE_ADDED, ['zip', 'Pikabot']),
        hostUrl('2711874', `http://${host}/doc/view.php`, 'offline', '2024-01-16 10:12:44 UTC', ['Pikabot']),
      ];
  return {
    query_status: 'ok',
    urlhaus_reference: `https://urlhaus.abuse.ch/host/${host}/`,
    host,
    firstseen: online ? FIRST_SEEN : '2024-01-16 10:12:40 UTC',
    url_count: String(urls.length),
    blacklists: {
      spamhaus_dbl: online ? 'abused_legit_malware' : 'not listed',
      surbl: online ? 'listed' : 'not listed',
    },
    urls,
  };
}

function hostUrl(
  id: string,
  url: string,
  status: string,
  added: string,
  urlTags: string[] | null,
): Record<string, unknown> {
  return {
    id,
    urlhaus_reference: `https://urlhaus.abuse.ch/url/${id}/`,
    url,
    url_status: status,
    date_added: added,
    threat: 'malware_download',
    reporter: REPORTER,
    larted: 'true',
    takedown_time_seconds: status === 'online' ? null : '130171',
    tags: urlTags,
  };
}

function urlBody(url: string, online: boolean): Record<string, unknown> {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    host = url;
  }
  return {
    query_status: 'ok',
    id: '2758916',
    urlhaus_reference: 'https://urlhaus.abuse.ch/url/2758916/',
    url,
    url_status: online ? 'online' : 'offline',
    host,
    date_added: online ? ADDED : OFFLINE_ADDED,
    last_online: online ? null : LAST_ONLINE,
    threat: 'malware_download',
    blacklists: { spamhaus_dbl: 'not listed', surbl: 'not listed' },
    reporter: REPORTER,
    larted: 'true',
    takedown_time_seconds: online ? null : '224548',
    tags: ['elf', 'Mozi'],
    payloads: [
      {
        firstseen: '2024-02-09',
        filename: 'mozi.m',
        file_type: 'elf',
        response_size: '307960',
        response_md5: MD5_OF_SAMPLE,
        response_sha256: SHA256_OF_SAMPLE,
        urlhaus_download: `https://urlhaus-api.abuse.ch/v1/download/${SHA256_OF_SAMPLE}/`,
        signature: 'Mozi',
        virustotal: null,
        imphash: null,
        ssdeep: '6144:q3iJ0xVfVAZ5x0v0D3xgJ1cVc7UgJ1GJ0:q3iJ0xVfVAZ5x0v0D3xgJ1cVc7UgJ1',
        tlsh: null,
        magika: 'elf',
      },
    ],
  };
}

function payloadBody(hash: string): Record<string, unknown> {
  const md5 = hash.length === 32 ? hash : MD5_OF_SAMPLE;
  const sha256 = hash.length === 64 ? hash : SHA256_OF_SAMPLE;
  return {
    query_status: 'ok',
    md5_hash: md5,
    sha256_hash: sha256,
    file_type: 'exe',
    file_size: '656896',
    signature: 'AgentTesla',
    firstseen: '2024-02-09 11:09:23',
    lastseen: '2024-02-10 08:01:52',
    url_count: '2',
    urlhaus_download: `https://urlhaus-api.abuse.ch/v1/download/${sha256}/`,
    virustotal: {
      result: '45 / 70',
      percent: '64.29',
      link: `https://www.virustotal.com/gui/file/${sha256}/detection/f-${sha256}-1707476963`,
    },
    imphash: 'f34d5f2d4577ed6d9ceec516c1f5a744',
    ssdeep: '12288:nXcsA1XtS7bS2Tn0E0G0A0dR8s8n0sj3:nXcsAvS7bS2TnZVdR8s8n0sj3',
    tlsh: 'T1A4D4F1212F5A8A2BD5B38F7845B36C7142B8BFCD1E20B5A76A57F4CD0E216A09C4D9C3',
    magika: 'pebin',
    urls: [
      {
        url_id: '2758930',
        url: 'http://45.61.49.78/files/invoice.exe',
        url_status: 'online',
        urlhaus_reference: 'https://urlhaus.abuse.ch/url/2758930/',
        filename: 'invoice.exe',
        firstseen: '2024-02-09',
        lastseen: '2024-02-10',
      },
      {
        url_id: '2758101',
        url: 'http://cdn-update.example.top/x/invoice.exe',
        url_status: 'offline',
        urlhaus_reference: 'https://urlhaus.abuse.ch/url/2758101/',
        filename: null,
        firstseen: '2024-02-09',
        lastseen: null,
      },
    ],
  };
}

/** JSON of a kind URLhaus never sends: `ok` with the lists and counts of the wrong type. */
function wrongShape(endpoint: Endpoint): Record<string, unknown> {
  if (endpoint === 'url') return { query_status: 'ok', url_status: 42, tags: 'elf' };
  if (endpoint === 'payload') return { query_status: 'ok', file_size: ['656896'], urls: { url: 'x' } };
  return { query_status: 'ok', url_count: { total: 3 }, urls: 'none' };
}

function endpointOf(path: string): Endpoint | undefined {
  const match = /^\/(host|url|payload)\/?$/.exec(path);
  return match ? (match[1] as Endpoint) : undefined;
}

/** The form fields of the body, when it is form-encoded; URLhaus sees no fields in a JSON or empty body. */
function formOf(request: EmulatorRequest): URLSearchParams {
  const type = header(request, 'content-type') ?? '';
  return type.toLowerCase().startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(request.body)
    : new URLSearchParams();
}

function refuse(queryStatus: string, status = 200): Routed {
  return { response: { status, body: { query_status: queryStatus } } };
}

function ok(body: Record<string, unknown>): EmulatorResponse {
  return { status: 200, body };
}

function header(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

// Letters, digits, hyphens and underscores in dot-separated labels, ending in a letter label.
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z][a-z0-9-]{0,62}$/;

const NOT_FOUND_PAGE = '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';
const FORBIDDEN_PAGE = '<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>';
const SERVER_ERROR_PAGE =
  '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';
