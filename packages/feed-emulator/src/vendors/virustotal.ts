// Emulation of the VirusTotal API v3 object lookups threatlib makes. What it follows, and where it was confirmed:
// - https://docs.virustotal.com/reference/errors: the `{"error": {"code", "message"}}` body and the table of codes
//   and statuses (AuthenticationRequiredError/WrongCredentialsError 401, ForbiddenError 403, NotFoundError 404,
//   QuotaExceededError 429, TransientError 503, InvalidArgumentError/BadRequestError 400), including the two
//   documented example bodies ("X-Apikey header is missing", `URL "..." not found`).
// - https://docs.virustotal.com/reference/url (URL identifiers): `/urls/{id}` takes the unpadded base64url of the
//   URL (RFC 4648 section 3.2) or the SHA-256 of the canonical URL; the object's own `id` is the SHA-256.
// - https://docs.virustotal.com/reference/domains-1, /ip-object, /url-object, /files, /analyses-object and
//   /popular_threat_classification: the attributes of each object, their types (dates are epoch seconds,
//   engine `result` may be null) and the file-only analysis categories.
// - VirusTotal/vt-py `vt/client.py`: the key travels in the `X-Apikey` header; `url_id()` is
//   `urlsafe_b64encode(url).strip("=")`.
// VirusTotal documents no Retry-After or rate-limit headers; the 429 here sends `Retry-After` so that clients'
// back-off can be tested, which the real API may not do.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { Behaviour, EmulatorRequest, EmulatorResponse, Routed, VendorApi } from '../vendor-api.js';

type Collection = 'domains' | 'ip_addresses' | 'urls' | 'files';
type Answer = 'malicious' | 'suspicious' | 'clean';

/** The object type VirusTotal names in `data.type` for each collection. */
const OBJECT_TYPES: Readonly<Record<Collection, string>> = {
  domains: 'domain',
  ip_addresses: 'ip_address',
  urls: 'url',
  files: 'file',
};

// Every answer describes the same moment (the emulator moves them all with its clock), so that tests can assert
// exact dates.
const LAST_ANALYSIS = 1_717_200_000; // 2024-06-01T00:00:00Z
const FIRST_SUBMISSION = 1_704_067_200; // 2024-01-01T00:00:00Z
const DOMAIN_CREATED = 1_714_521_600; // 2024-05-01T00:00:00Z
const OLD_DOMAIN_CREATED = 946_684_800; // 2000-01-01T00:00:00Z

const URL_ENGINES = [
  'Abusix',
  'ADMINUSLabs',
  'AlienVault',
  'alphaMountain.ai',
  'Antiy-AVL',
  'Avira',
  'BitDefender',
  'Certego',
  'CRDF',
  'CyRadar',
  'Dr.Web',
  'Emsisoft',
  'ESET',
  'Forcepoint ThreatSeeker',
  'Fortinet',
  'G-Data',
  'Google Safebrowsing',
  'Kaspersky',
  'Lionic',
  'Netcraft',
  'OpenPhish',
  'Phishtank',
  'Quttera',
  'Sophos',
  'Spamhaus',
  'Trustwave',
  'URLhaus',
  'Webroot',
  'Yandex Safebrowsing',
  'ZeroCERT',
] as const;

const FILE_ENGINES = [
  'ALYac',
  'Arcabit',
  'Avast',
  'AVG',
  'Avira',
  'BitDefender',
  'ClamAV',
  'CrowdStrike',
  'Cylance',
  'DrWeb',
  'Elastic',
  'Emsisoft',
  'ESET-NOD32',
  'F-Secure',
  'Fortinet',
  'GData',
  'Ikarus',
  'K7GW',
  'Kaspersky',
  'Malwarebytes',
  'McAfee',
  'Microsoft',
  'Panda',
  'Sophos',
  'Symantec',
  'Tencent',
  'TrendMicro',
  'VIPRE',
  'Webroot',
  'ZoneAlarm',
] as const;

// Detection names in the style each vendor writes them, for the malicious file.
const EMOTET_DETECTIONS = [
  'Trojan.Emotet.A',
  'Trojan.Emotet.Gen.1',
  'Win32:Emotet-AB [Trj]',
  'Win32:Emotet-AB [Trj]',
  'TR/Emotet.ocrvb',
  'Trojan.GenericKD.46585616',
  'Win.Malware.Emotet-9953413-0',
  'Win/malicious_confidence_100% (W)',
  'Unsafe',
  'Trojan.Emotet.1098',
  'Malicious (high Confidence)',
  'Trojan.Emotet.A (A)',
  'a variant of Win32/Kryptik.HKDI',
  'Trojan.TR/Emotet.ocrvb',
  'W32/Emotet.AJ!tr',
  'Trojan.GenericKD.46585616',
  'Trojan-Banker.Win32.Emotet.gen',
  'Trojan ( 0057b0ac1 )',
  'HEUR:Trojan-Banker.Win32.Emotet.gen',
  'Trojan.MalPack.Emotet',
  'Emotet-FRV!5A8F8E2E1C4B',
  'Trojan:Win32/Emotet.PD!MTB',
  'Trj/GdSda.A',
  'Troj/Emotet-CUD',
] as const;

/**
 * The VirusTotal API v3 as the emulator serves it: `GET /domains/{domain}`, `/ip_addresses/{ip}`, `/urls/{id}` and
 * `/files/{hash}` under `/virustotal/api/v3`, authenticated by the `x-apikey` header.
 */
export const virustotal: VendorApi = {
  feed: 'feed_scan',
  prefix: '/virustotal/api/v3',
  requiresKey: true,
  // The analyses are from 2024-06-01 00:00 UTC, the engines' signatures from the day before.
  recordedAt: Date.parse('2024-06-01T12:00:00Z'),
  dateKeys: { epochSeconds: /_date$/, compactDate: /^engine_update$/ },
  key: (request) => headerValue(request, 'x-apikey'),
  route,
  respond(behaviour, indicator, request) {
    const collection = collectionOf(request.path);
    if (collection === undefined) return notFound('Resource not found.');
    return respondFor(behaviour, indicator, collection, request);
  },
};

function route(request: EmulatorRequest): Routed {
  const segments = request.path.split('/').slice(1);
  const [first, encoded, ...rest] = segments;
  const collection = isCollection(first) ? first : undefined;
  if (collection === undefined || encoded === undefined || encoded === '' || rest.length > 0) {
    // Relationship paths (`/domains/x/resolutions`) exist on the real API but are not asked by threatlib.
    return { response: notFound('Resource not found.') };
  }
  if (request.method !== 'GET') {
    return { response: error(400, 'BadRequestError', `Method ${request.method} is not allowed here`) };
  }
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    return { response: error(400, 'BadRequestError', 'The path is not valid percent-encoding') };
  }
  switch (collection) {
    case 'domains': {
      const domain = id.toLowerCase();
      if (!isDomain(domain)) return { response: error(400, 'InvalidArgumentError', `"${id}" is not a valid domain`) };
      return { indicator: domain };
    }
    case 'ip_addresses': {
      if (isIP(id) === 0) return { response: error(400, 'InvalidArgumentError', `"${id}" is not a valid IP address`) };
      return { indicator: id.toLowerCase() };
    }
    case 'files': {
      if (!/^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/i.test(id)) {
        return {
          response: error(400, 'InvalidArgumentError', `"${id}" is not a valid file hash (MD5, SHA-1 or SHA-256)`),
        };
      }
      return { indicator: id.toLowerCase() };
    }
    case 'urls': {
      const url = decodeUrlId(id);
      // The documented answer for an identifier that names no URL, as in the example on the errors page.
      if (url === undefined) return { response: notFound(`URL "${id}" not found`) };
      return { indicator: url };
    }
  }
}

/**
 * The URL an identifier names: the unpadded base64url text of a URL. A SHA-256 identifier cannot be turned back into
 * a URL, so the emulator names it by the hash itself.
 */
function decodeUrlId(id: string): string | undefined {
  if (/^[0-9a-f]{64}$/.test(id)) return id;
  // Padding and the standard alphabet's `+` and `/` are not part of the documented encoding.
  if (!/^[A-Za-z0-9_-]+$/.test(id) || id.length % 4 === 1) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return undefined;
  return /^(?:https?|ftp):\/\/\S+$/i.test(text) ? text : undefined;
}

function respondFor(
  behaviour: Exclude<Behaviour, 'hang' | 'malformed'>,
  indicator: string,
  collection: Collection,
  request: EmulatorRequest,
): EmulatorResponse {
  switch (behaviour) {
    case 'malicious':
    case 'suspicious':
    case 'clean':
      return { status: 200, body: objectBody(behaviour, indicator, collection) };
    case 'not_found':
      return notFound(notFoundMessage(collection, indicator, request));
    case 'unauthorized':
      return virustotal.key(request)
        ? error(401, 'WrongCredentialsError', 'Wrong API key')
        : error(401, 'AuthenticationRequiredError', 'X-Apikey header is missing');
    case 'forbidden':
      return error(403, 'ForbiddenError', 'You are not allowed to perform the requested operation');
    case 'rate_limited':
      return {
        ...error(429, 'QuotaExceededError', 'Quota exceeded'),
        headers: { 'retry-after': '60' },
      };
    case 'server_error':
      return error(503, 'TransientError', 'Transient server error. Retry might work.');
    case 'wrong_shape':
      // The analysis summary as text instead of an object of counts: JSON VirusTotal never sends.
      return {
        status: 200,
        body: {
          data: {
            id: objectId(collection, indicator),
            type: OBJECT_TYPES[collection],
            attributes: { last_analysis_stats: '12/94', reputation: 'bad' },
          },
        },
      };
  }
}

function notFoundMessage(collection: Collection, indicator: string, request: EmulatorRequest): string {
  const asked = decodeURIComponentSafe(request.path.split('/')[2] ?? indicator);
  switch (collection) {
    case 'domains':
      return `Domain "${indicator}" not found`;
    case 'ip_addresses':
      return `IP address "${indicator}" not found`;
    case 'urls':
      return `URL "${asked}" not found`;
    case 'files':
      return `File "${indicator}" not found`;
  }
}

function objectBody(answer: Answer, indicator: string, collection: Collection): unknown {
  const id = objectId(collection, indicator);
  const attributes =
    collection === 'files'
      ? fileAttributes(answer, indicator)
      : collection === 'urls'
        ? urlAttributes(answer, indicator)
        : collection === 'domains'
          ? domainAttributes(answer)
          : ipAttributes(answer);
  return {
    data: {
      id,
      type: OBJECT_TYPES[collection],
      links: { self: `https://www.virustotal.com/api/v3/${collection}/${id}` },
      attributes,
    },
  };
}

function objectId(collection: Collection, indicator: string): string {
  if (collection === 'files') return fileHashes(indicator).sha256;
  // A URL object's id is the SHA-256 of its canonical form; the emulator takes the URL as already canonical.
  if (collection === 'urls') return /^[0-9a-f]{64}$/.test(indicator) ? indicator : hash('sha256', indicator);
  return indicator;
}

interface EngineVerdict {
  category: string;
  result: string | null;
}

/** Engine results and the matching stats, for the network objects (domains, IP addresses, URLs). */
function networkAnalysis(answer: Answer): Record<string, unknown> {
  const verdicts: EngineVerdict[] = URL_ENGINES.map((_, index) => {
    if (answer === 'malicious' && index < 12) {
      return {
        category: 'malicious',
        result: index % 3 === 0 ? 'phishing' : index % 3 === 1 ? 'malware' : 'malicious',
      };
    }
    if (answer === 'malicious' && index === 12) return { category: 'suspicious', result: 'suspicious' };
    if (answer === 'suspicious' && index === 0) return { category: 'malicious', result: 'malicious' };
    if (answer === 'suspicious' && index === 1) return { category: 'suspicious', result: 'suspicious' };
    return index % 2 === 0 ? { category: 'harmless', result: 'clean' } : { category: 'undetected', result: 'unrated' };
  });
  const results: Record<string, unknown> = {};
  URL_ENGINES.forEach((engine, index) => {
    const verdict = verdicts[index] as EngineVerdict;
    results[engine] = { method: 'blacklist', engine_name: engine, category: verdict.category, result: verdict.result };
  });
  return {
    last_analysis_date: LAST_ANALYSIS,
    last_analysis_results: results,
    last_analysis_stats: stats(verdicts, ['harmless', 'malicious', 'suspicious', 'undetected', 'timeout']),
  };
}

function stats(verdicts: readonly EngineVerdict[], keys: readonly string[]): Record<string, number> {
  const counts = Object.fromEntries(keys.map((key) => [key, 0]));
  for (const verdict of verdicts) counts[verdict.category] = (counts[verdict.category] ?? 0) + 1;
  return counts;
}

function votesAndReputation(answer: Answer): Record<string, unknown> {
  if (answer === 'malicious') return { reputation: -34, total_votes: { harmless: 0, malicious: 6 } };
  if (answer === 'suspicious') return { reputation: 0, total_votes: { harmless: 0, malicious: 0 } };
  return { reputation: 12, total_votes: { harmless: 4, malicious: 0 } };
}

function domainAttributes(answer: Answer): Record<string, unknown> {
  return {
    ...networkAnalysis(answer),
    ...votesAndReputation(answer),
    categories:
      answer === 'malicious'
        ? {
            'Forcepoint ThreatSeeker': 'phishing and other frauds',
            Sophos: 'phishing and fraud',
            BitDefender: 'phishing',
            'alphaMountain.ai': 'Phishing',
          }
        : answer === 'suspicious'
          ? { 'Forcepoint ThreatSeeker': 'newly registered websites', BitDefender: 'misc' }
          : { 'Forcepoint ThreatSeeker': 'information technology', BitDefender: 'computersandsoftware' },
    creation_date: answer === 'clean' ? OLD_DOMAIN_CREATED : DOMAIN_CREATED,
    last_modification_date: LAST_ANALYSIS,
    last_dns_records: [{ type: 'A', ttl: 300, value: '192.0.2.10' }],
    last_dns_records_date: LAST_ANALYSIS,
    registrar: 'NameCheap, Inc.',
    tld: 'com',
    tags: answer === 'malicious' ? ['dga'] : [],
    whois: 'Domain Name: EXAMPLE\nRegistrar: NameCheap, Inc.',
  };
}

function ipAttributes(answer: Answer): Record<string, unknown> {
  return {
    ...networkAnalysis(answer),
    ...votesAndReputation(answer),
    as_owner: 'EXAMPLE-HOSTING',
    asn: 64_500,
    continent: 'EU',
    country: 'NL',
    network: '192.0.2.0/24',
    regional_internet_registry: 'RIPE NCC',
    last_modification_date: LAST_ANALYSIS,
    tags: answer === 'malicious' ? ['suspicious-udp'] : [],
  };
}

function urlAttributes(answer: Answer, url: string): Record<string, unknown> {
  return {
    ...networkAnalysis(answer),
    ...votesAndReputation(answer),
    url,
    last_final_url: url,
    title: answer === 'clean' ? 'Example Domain' : 'Sign in to your account',
    categories:
      answer === 'malicious'
        ? { 'Forcepoint ThreatSeeker': 'phishing and other frauds', Sophos: 'phishing and fraud' }
        : answer === 'suspicious'
          ? { 'Forcepoint ThreatSeeker': 'uncategorized' }
          : { 'Forcepoint ThreatSeeker': 'information technology' },
    first_submission_date: FIRST_SUBMISSION,
    last_submission_date: LAST_ANALYSIS,
    last_http_response_code: 200,
    last_http_response_content_length: 1256,
    times_submitted: answer === 'malicious' ? 17 : 2,
    threat_names: answer === 'malicious' ? ['Mal/HTMLGen-A'] : [],
    tags: answer === 'malicious' ? ['external-resources', 'iframes'] : [],
  };
}

function fileAttributes(answer: Answer, indicator: string): Record<string, unknown> {
  const { md5, sha1, sha256 } = fileHashes(indicator);
  const verdicts: EngineVerdict[] = FILE_ENGINES.map((_, index) => {
    if (answer === 'malicious' && index < 24) {
      return { category: 'malicious', result: EMOTET_DETECTIONS[index] ?? 'Trojan.Emotet' };
    }
    if (answer === 'suspicious' && index === 0) return { category: 'malicious', result: 'Trojan.Generic.D3A1B2C' };
    if (answer === 'suspicious' && index === 1) return { category: 'suspicious', result: 'Suspicious.Packed' };
    if (index === 29) return { category: 'type-unsupported', result: null };
    return { category: 'undetected', result: null };
  });
  const results: Record<string, unknown> = {};
  FILE_ENGINES.forEach((engine, index) => {
    const verdict = verdicts[index] as EngineVerdict;
    results[engine] = {
      method: 'blacklist',
      engine_name: engine,
      engine_version: '1.0.0.0',
      engine_update: '20240531',
      category: verdict.category,
      result: verdict.result,
    };
  });
  return {
    md5,
    sha1,
    sha256,
    size: 382_976,
    type_description: 'Win32 EXE',
    type_tag: 'peexe',
    names: answer === 'clean' ? ['setup.exe'] : ['invoice_0421.exe', 'sample.bin'],
    meaningful_name: answer === 'clean' ? 'setup.exe' : 'invoice_0421.exe',
    // The compile time written in the binary: malware authors fake it, so it says nothing about when it was seen.
    creation_date: 1_262_304_000,
    first_submission_date: FIRST_SUBMISSION,
    last_submission_date: LAST_ANALYSIS,
    last_analysis_date: LAST_ANALYSIS,
    last_modification_date: LAST_ANALYSIS,
    times_submitted: answer === 'malicious' ? 9 : 1,
    unique_sources: answer === 'malicious' ? 4 : 1,
    last_analysis_results: results,
    last_analysis_stats: stats(verdicts, [
      'harmless',
      'type-unsupported',
      'suspicious',
      'confirmed-timeout',
      'timeout',
      'failure',
      'malicious',
      'undetected',
    ]),
    ...votesAndReputation(answer),
    tags: answer === 'clean' ? ['peexe', 'signed'] : ['peexe', 'checks-user-input', 'detect-debug-environment'],
    ...(answer === 'malicious'
      ? {
          popular_threat_classification: {
            suggested_threat_label: 'trojan.emotet/heodo',
            popular_threat_category: [
              { count: 19, value: 'trojan' },
              { count: 5, value: 'banker' },
            ],
            popular_threat_name: [
              { count: 14, value: 'emotet' },
              { count: 3, value: 'heodo' },
              { count: 2, value: 'kryptik' },
            ],
          },
        }
      : {}),
  };
}

function fileHashes(indicator: string): { md5: string; sha1: string; sha256: string } {
  return {
    md5: indicator.length === 32 ? indicator : hash('md5', indicator),
    sha1: indicator.length === 40 ? indicator : hash('sha1', indicator),
    sha256: indicator.length === 64 ? indicator : hash('sha256', indicator),
  };
}

function hash(algorithm: 'md5' | 'sha1' | 'sha256', text: string): string {
  return createHash(algorithm).update(text).digest('hex');
}

function error(status: number, code: string, message: string): EmulatorResponse {
  return { status, body: { error: { code, message } } };
}

function notFound(message: string): EmulatorResponse {
  return error(404, 'NotFoundError', message);
}

function isCollection(value: string | undefined): value is Collection {
  return value === 'domains' || value === 'ip_addresses' || value === 'urls' || value === 'files';
}

function collectionOf(path: string): Collection | undefined {
  const first = path.split('/')[1];
  return isCollection(first) ? first : undefined;
}

function isDomain(text: string): boolean {
  return (
    text.length <= 253 &&
    /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(text)
  );
}

function headerValue(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
