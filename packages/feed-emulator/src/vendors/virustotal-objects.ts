// The objects the VirusTotal emulator answers with: the `data` of a domain, IP address, URL or file, with the
// attributes, engine results and stats VirusTotal documents for each (sources are listed in virustotal.ts), all
// dated at the same recorded moment.
import { createHash } from 'node:crypto';
import { EMOTET_DETECTIONS, FILE_ENGINES, URL_ENGINES } from './virustotal-engines.js';

/** The collections the emulator serves. */
export type Collection = 'domains' | 'ip_addresses' | 'urls' | 'files';
type Answer = 'malicious' | 'suspicious' | 'clean';

/** The object type VirusTotal names in `data.type` for each collection. */
export const OBJECT_TYPES: Readonly<Record<Collection, string>> = {
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

/** The `data` of an object VirusTotal has analysed, with the verdict `answer`. */
export function objectBody(answer: Answer, indicator: string, collection: Collection): unknown {
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

/** The id of the object: a file's SHA-256, a URL's SHA-256, the domain or IP address itself. */
export function objectId(collection: Collection, indicator: string): string {
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
