import { isIP } from 'node:net';
import type { EmulatorResponse, VendorApi } from '../vendor-api.js';

// CrowdSec CTI API v2 (`/smoke/{ip}`) as the docs (docs.crowdsec.net CTI format and taxonomy pages) and the vendor's
// Go client (crowdsecurity/crowdsec pkg/cticlient) describe it. The API sits behind an API gateway, which shapes its
// error answers: `{"message": ...}`, 403 for a missing or wrong key, 429 "Limit Exceeded" once the quota is used.

interface SmokeSeed {
  reputation: string;
  confidence: string;
  background_noise: string;
  background_noise_score: number;
  behaviors: Labelled[];
  classifications: Labelled[];
  false_positives: Labelled[];
  attack_details: Labelled[];
  total: number;
  references: Labelled[];
}

interface Labelled {
  name: string;
  label: string;
  description: string;
}

const MALICIOUS: SmokeSeed = {
  reputation: 'malicious',
  confidence: 'high',
  background_noise: 'low',
  background_noise_score: 2,
  behaviors: [
    labelled('ssh:bruteforce', 'SSH Bruteforce', 'IP has been reported for performing brute force on ssh services.'),
    labelled(
      'http:exploit',
      'HTTP Exploit',
      'IP has been reported for attempting to exploit a vulnerability in a web application.',
    ),
  ],
  classifications: [
    labelled('community-blocklist', 'CrowdSec Community Blocklist', 'IP belongs to the CrowdSec Community Blocklist'),
  ],
  false_positives: [],
  attack_details: [
    labelled('crowdsecurity/ssh-bf', 'SSH Bruteforce', 'Detect ssh bruteforce'),
    labelled('crowdsecurity/CVE-2022-26134', 'Confluence CVE-2022-26134', 'Detect CVE-2022-26134 exploits'),
  ],
  total: 4,
  references: [
    labelled(
      'list:firehol_cybercrime',
      'Firehol cybercrime tracker list',
      'CyberCrime, a project tracking command and control.',
    ),
  ],
};

const SUSPICIOUS: SmokeSeed = {
  reputation: 'suspicious',
  confidence: 'medium',
  background_noise: 'high',
  background_noise_score: 10,
  behaviors: [labelled('tcp:scan', 'TCP Scan', 'IP has been reported for performing TCP port scanning.')],
  classifications: [labelled('range:data_center', 'Data Center', 'IP is known to be hosted in a data center.')],
  false_positives: [],
  attack_details: [labelled('crowdsecurity/iptables-scan-multi_ports', 'Port Scanner', 'Detect tcp port scan')],
  total: 2,
  references: [],
};

const SAFE: SmokeSeed = {
  reputation: 'safe',
  confidence: 'high',
  background_noise: 'none',
  background_noise_score: 0,
  behaviors: [
    labelled('http:scan', 'HTTP Scan', 'IP has been reported for performing actions related to HTTP scanning.'),
  ],
  classifications: [],
  false_positives: [
    labelled(
      'cdn:cloudflare_exit_node',
      'Cloudflare CDN',
      'IP is a Cloudflare CDN exit IP and should not be flagged as a threat.',
    ),
  ],
  attack_details: [
    labelled('crowdsecurity/http-probing', 'HTTP Probing', 'Detect site scanning/probing from a single ip'),
  ],
  total: 0,
  references: [],
};

/** The emulated CrowdSec CTI API v2 (`feed_cti`), answering `GET /smoke/{ip}`. */
export const crowdsec: VendorApi = {
  feed: 'feed_cti',
  prefix: '/crowdsec/v2',
  requiresKey: true,
  // The address was last seen on 2025-11-19 22:45 UTC.
  recordedAt: Date.parse('2025-11-21T00:00:00Z'),
  key: (request) => {
    const value = request.headers['x-api-key'];
    return Array.isArray(value) ? value[0] : value;
  },
  route(request) {
    const match = /^\/smoke\/([^/]+)$/.exec(request.path);
    // The gateway answers a method or resource it does not route with this 403, whatever the key.
    if (!match?.[1] || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return { response: message(403, 'Missing Authentication Token') };
    }
    const ip = safeDecode(match[1]);
    if (ip === undefined || isIP(ip) === 0) return { response: message(400, 'Invalid IP address') };
    return { indicator: ip };
  },
  respond(behaviour, indicator) {
    switch (behaviour) {
      case 'malicious':
        return smoke(indicator, MALICIOUS);
      case 'suspicious':
        return smoke(indicator, SUSPICIOUS);
      case 'clean':
        return smoke(indicator, SAFE);
      case 'not_found':
        return message(404, 'IP address information not found');
      case 'unauthorized':
      case 'forbidden':
        // CrowdSec has no 401: a missing, wrong or disabled key is the gateway's 403.
        return message(403, 'Forbidden');
      case 'rate_limited':
        // CrowdSec documents no rate-limit headers; Retry-After is sent so clients that honour it can be tested.
        return { ...message(429, 'Limit Exceeded'), headers: { 'Retry-After': '3600' } };
      case 'server_error':
        return message(500, 'Internal server error');
      case 'wrong_shape':
        // `reputation` and `scores` are never a list and a number.
        return { status: 200, body: { ip: indicator, reputation: ['malicious'], scores: 4 } };
    }
  },
};

function smoke(ip: string, seed: SmokeSeed): EmulatorResponse {
  const score = (total: number) => ({
    aggressiveness: total,
    threat: Math.max(0, total - 1),
    trust: total,
    anomaly: 1,
    total,
  });
  const v4 = isIP(ip) === 4;
  return {
    status: 200,
    body: {
      ip,
      reputation: seed.reputation,
      ip_range: v4 ? `${ip.split('.').slice(0, 2).join('.')}.0.0/16` : null,
      background_noise: seed.background_noise,
      confidence: seed.confidence,
      background_noise_score: seed.background_noise_score,
      ip_range_score: seed.total,
      as_name: 'EXAMPLE-AS',
      as_num: 64500,
      ip_range_24: v4 ? `${ip.split('.').slice(0, 3).join('.')}.0/24` : null,
      ip_range_24_reputation: seed.reputation,
      ip_range_24_score: seed.total,
      location: { country: 'NL', city: 'Amsterdam', latitude: 52.3759, longitude: 4.8975 },
      reverse_dns: null,
      behaviors: seed.behaviors,
      history: {
        first_seen: '2025-08-02T14:15:00+00:00',
        last_seen: '2025-11-19T22:45:00+00:00',
        full_age: 112,
        days_age: 109,
      },
      classifications: { false_positives: seed.false_positives, classifications: seed.classifications },
      attack_details: seed.attack_details.map((detail) => ({ ...detail, references: [] })),
      target_countries: { US: 41, DE: 22, FR: 15, NL: 9, GB: 6 },
      mitre_techniques: [],
      cves: seed.attack_details.some((d) => d.name.includes('CVE-2022-26134')) ? ['CVE-2022-26134'] : [],
      scores: {
        overall: score(seed.total),
        last_day: score(Math.max(0, seed.total - 2)),
        last_week: score(seed.total),
        last_month: score(seed.total),
      },
      references: seed.references.map((reference) => ({ ...reference, references: [] })),
    },
  };
}

function message(status: number, text: string): EmulatorResponse {
  return { status, body: { message: text } };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function labelled(name: string, label: string, description: string): Labelled {
  return { name, label, description };
}
