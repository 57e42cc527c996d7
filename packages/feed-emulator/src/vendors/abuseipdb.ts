import { isIP } from 'node:net';
import type { EmulatorRequest, EmulatorResponse, VendorApi } from '../vendor-api.js';

// AbuseIPDB API v2 as documented at https://docs.abuseipdb.com (CHECK endpoint, error format, rate limiting), with
// the error details AbuseIPDB is recorded sending (streanger/abuseipdb-wrapper). Only `/check` is emulated.

/** The other v2 endpoints; they exist on the real API but the emulator does not answer them. */
const UNEMULATED = new Set(['/reports', '/blacklist', '/report', '/check-block', '/bulk-report', '/clear-address']);

interface ReportSeed {
  reportedAt: string;
  comment: string;
  categories: number[];
  reporterId: number;
  reporterCountryCode: string;
  reporterCountryName: string;
}

const MALICIOUS_REPORTS: ReportSeed[] = [
  report('2025-11-20T08:14:03+00:00', 'sshd[2211]: Failed password for root', [18, 22], 41234, 'DE', 'Germany'),
  report(
    '2025-11-19T23:02:45+00:00',
    'SSH brute force, 312 attempts in 10 min',
    [18, 22],
    11872,
    'US',
    'United States',
  ),
  report('2025-11-19T17:40:12+00:00', 'Port scan: TCP 22,23,2222,3389', [14], 50917, 'NL', 'Netherlands'),
  report('2025-11-18T06:55:31+00:00', 'Invalid user admin from this host', [18], 41234, 'DE', 'Germany'),
  report('2025-11-17T12:21:09+00:00', 'fail2ban sshd jail', [22, 18], 7731, 'FR', 'France'),
  report('2025-11-15T03:11:58+00:00', 'GET /wp-login.php probing', [21, 15], 98211, 'GB', 'United Kingdom'),
];

const SUSPICIOUS_REPORTS: ReportSeed[] = [
  report('2025-11-10T10:01:44+00:00', 'Port scan from Tor exit', [14], 63002, 'CA', 'Canada'),
  report('2025-11-02T21:37:20+00:00', 'Scraping with rotating user agents', [19, 14], 12450, 'US', 'United States'),
  report('2025-10-28T04:18:07+00:00', 'nmap SYN scan', [14, 15], 63002, 'CA', 'Canada'),
];

const WHITELISTED_REPORTS: ReportSeed[] = [
  report('2025-09-01T14:22:10+00:00', 'DNS queries flagged by IDS', [1], 22011, 'BR', 'Brazil'),
];

/** The emulated AbuseIPDB API v2 (`feed_abuse`), answering `GET /check`. */
export const abuseipdb: VendorApi = {
  feed: 'feed_abuse',
  prefix: '/abuseipdb/api/v2',
  requiresKey: true,
  // The newest report is from 2025-11-20 08:14 UTC.
  recordedAt: Date.parse('2025-11-21T00:00:00Z'),
  // The docs still accept the key as a `key` query parameter, though the header is recommended.
  key: (request) => header(request, 'key') ?? request.query.get('key') ?? undefined,
  route(request) {
    if (request.path !== '/check') {
      if (UNEMULATED.has(request.path)) {
        return { response: error(request, 501, `The emulator does not implement ${request.path}.`) };
      }
      return { response: error(request, 404, 'The requested resource could not be found.') };
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return {
        response: error(
          request,
          405,
          `The ${request.method} method is not supported for route api/v2/check. Supported methods: GET, HEAD.`,
        ),
      };
    }
    const ipAddress = request.query.get('ipAddress');
    if (ipAddress === null || ipAddress === '') {
      return { response: error(request, 422, 'The ip address field is required.', 'ipAddress') };
    }
    if (isIP(ipAddress) === 0) {
      return {
        response: error(
          request,
          422,
          'The ip address must be a valid IPv4 or IPv6 address (e.g. 8.8.8.8 or 2001:4860:4860::8888).',
          'ipAddress',
        ),
      };
    }
    const maxAge = request.query.get('maxAgeInDays');
    if (maxAge !== null && (!/^\d+$/.test(maxAge) || Number(maxAge) < 1 || Number(maxAge) > 365)) {
      return { response: error(request, 422, 'The max age in days must be between 1 and 365.', 'maxAgeInDays') };
    }
    return { indicator: ipAddress };
  },
  respond(behaviour, indicator, request, now) {
    switch (behaviour) {
      case 'malicious':
        return check(request, indicator, {
          abuseConfidenceScore: 100,
          numDistinctUsers: 5,
          isTor: false,
          isWhitelisted: false,
          reports: MALICIOUS_REPORTS,
        });
      case 'suspicious':
        return check(request, indicator, {
          abuseConfidenceScore: 42,
          numDistinctUsers: 2,
          isTor: true,
          isWhitelisted: false,
          reports: SUSPICIOUS_REPORTS,
        });
      case 'clean':
        // A public resolver-like address: on AbuseIPDB's whitelist, with a stray report and a confidence of 0.
        return check(request, indicator, {
          abuseConfidenceScore: 0,
          numDistinctUsers: 1,
          isTor: false,
          isWhitelisted: true,
          reports: WHITELISTED_REPORTS,
        });
      case 'not_found':
        return check(request, indicator, {
          abuseConfidenceScore: 0,
          numDistinctUsers: 0,
          isTor: false,
          isWhitelisted: false,
          reports: [],
        });
      case 'unauthorized':
        return error(
          request,
          401,
          'Authentication failed. Your API key is either missing, incorrect, or revoked. Note: The APIv2 key differs from the APIv1 key.',
        );
      case 'forbidden':
        return error(request, 403, 'Your account does not have access to this endpoint.');
      case 'rate_limited': {
        const retryAfter = 29241;
        return {
          ...error(
            request,
            429,
            'Daily rate limit of 1000 requests exceeded for this endpoint. See headers for additional details.',
          ),
          headers: {
            ...contentType(request),
            'Retry-After': String(retryAfter),
            'X-RateLimit-Limit': '1000',
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(Math.floor(now / 1000) + retryAfter),
          },
        };
      }
      case 'server_error':
        return error(request, 500, 'Server Error');
      case 'wrong_shape':
        // Fields AbuseIPDB always sends as numbers arrive as a word and as null.
        return {
          status: 200,
          body: { data: { ipAddress: indicator, abuseConfidenceScore: 'high', totalReports: null } },
        };
    }
  },
};

interface CheckSeed {
  abuseConfidenceScore: number;
  numDistinctUsers: number;
  isTor: boolean;
  isWhitelisted: boolean;
  reports: ReportSeed[];
}

function check(request: EmulatorRequest, ip: string, seed: CheckSeed): EmulatorResponse {
  // `verbose` adds `countryName` and the reports; without it both are left out, as the docs say.
  const verbose = request.query.has('verbose');
  const reported = seed.reports.length > 0;
  return {
    status: 200,
    headers: { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '998' },
    body: {
      data: {
        ipAddress: ip,
        isPublic: true,
        ipVersion: isIP(ip),
        isWhitelisted: seed.isWhitelisted,
        abuseConfidenceScore: seed.abuseConfidenceScore,
        countryCode: 'NL',
        ...(verbose ? { countryName: 'Netherlands' } : {}),
        usageType: 'Data Center/Web Hosting/Transit',
        isp: 'Example Hosting B.V.',
        domain: 'example-hosting.nl',
        hostnames: [],
        isTor: seed.isTor,
        totalReports: seed.reports.length,
        numDistinctUsers: seed.numDistinctUsers,
        lastReportedAt: reported ? seed.reports[0]?.reportedAt : null,
        ...(verbose ? { reports: seed.reports } : {}),
      },
    },
  };
}

/** AbuseIPDB's error answer; without `Accept: application/json` it sends an HTML page instead, as the docs warn. */
function error(request: EmulatorRequest, status: number, detail: string, parameter?: string): EmulatorResponse {
  if (!wantsJson(request)) {
    return {
      status,
      headers: { 'content-type': 'text/html; charset=UTF-8' },
      body: `<!DOCTYPE html><html><head><title>AbuseIPDB</title></head><body><h1>${status}</h1><p>${detail}</p></body></html>`,
    };
  }
  return {
    status,
    headers: contentType(request),
    body: { errors: [{ detail, status, ...(parameter ? { source: { parameter } } : {}) }] },
  };
}

function contentType(request: EmulatorRequest): Record<string, string> {
  return wantsJson(request) ? { 'content-type': 'application/json' } : { 'content-type': 'text/html; charset=UTF-8' };
}

function wantsJson(request: EmulatorRequest): boolean {
  return (header(request, 'accept') ?? '').toLowerCase().includes('application/json');
}

function header(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function report(
  reportedAt: string,
  comment: string,
  categories: number[],
  reporterId: number,
  reporterCountryCode: string,
  reporterCountryName: string,
): ReportSeed {
  return { reportedAt, comment, categories, reporterId, reporterCountryCode, reporterCountryName };
}
