// The VirusTotal feed's test cases: the API key the tests use, and for each indicator type what is passed, the
// request path it must make and the pages its answers link to.
import { createHash } from 'node:crypto';
import type { IndicatorType } from '../indicators/index.js';

export const KEY = 'vt-test-key-0123456789abcdef';

export const GUI = 'https://www.virustotal.com/gui';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const MD5 = '44d88612fea8a8f36de82e1278abb02f';
const SHA1 = '3395856ce81f2b7382dee72602f798b642f14140';
export const SHA256 = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f';

interface Case {
  type: IndicatorType;
  /** What is passed to parseIndicator. */
  input: string;
  /** What the emulator records as the indicator (the value scripts use). */
  indicator: string;
  /** Path below the API prefix, exactly as sent. */
  path: string;
  /** The object's page on the VirusTotal site when it answered. */
  page: string;
  /** The page the not-found answer links to. */
  notFoundPage: string;
  noun: string;
}

// The URL is given defanged; its normalised form has a `~`, whose base64url encoding holds a `-` (a `+` in standard
// base64) and would need padding, so the identifier checks both the alphabet and the unpadded form.
const URL_VALUE = 'http://evil.com/dl.php?id=~1';
export const URL_ID = 'aHR0cDovL2V2aWwuY29tL2RsLnBocD9pZD1-MQ';

export const CASES: readonly Case[] = [
  {
    type: 'domain',
    input: 'evil[.]com',
    indicator: 'evil.com',
    path: '/domains/evil.com',
    page: `${GUI}/domain/evil.com`,
    notFoundPage: `${GUI}/domain/evil.com`,
    noun: 'domain',
  },
  {
    type: 'ipv4',
    input: '198.51.100.23',
    indicator: '198.51.100.23',
    path: '/ip_addresses/198.51.100.23',
    page: `${GUI}/ip-address/198.51.100.23`,
    notFoundPage: `${GUI}/ip-address/198.51.100.23`,
    noun: 'IP address',
  },
  {
    type: 'ipv6',
    input: '2001:DB8:0:0:0:0:0:1',
    indicator: '2001:db8::1',
    path: '/ip_addresses/2001:db8::1',
    page: `${GUI}/ip-address/2001:db8::1`,
    notFoundPage: `${GUI}/ip-address/2001:db8::1`,
    noun: 'IP address',
  },
  {
    type: 'url',
    input: 'hxxp://evil[.]com/dl.php?id=~1',
    indicator: URL_VALUE,
    path: `/urls/${URL_ID}`,
    page: `${GUI}/url/${sha256(URL_VALUE)}`,
    notFoundPage: `${GUI}/url/${URL_ID}`,
    noun: 'URL',
  },
  {
    type: 'md5',
    input: MD5.toUpperCase(),
    indicator: MD5,
    path: `/files/${MD5}`,
    page: `${GUI}/file/${sha256(MD5)}`,
    notFoundPage: `${GUI}/file/${MD5}`,
    noun: 'file',
  },
  {
    type: 'sha1',
    input: SHA1,
    indicator: SHA1,
    path: `/files/${SHA1}`,
    page: `${GUI}/file/${sha256(SHA1)}`,
    notFoundPage: `${GUI}/file/${SHA1}`,
    noun: 'file',
  },
  {
    type: 'sha256',
    input: SHA256,
    indicator: SHA256,
    path: `/files/${SHA256}`,
    page: `${GUI}/file/${SHA256}`,
    notFoundPage: `${GUI}/file/${SHA256}`,
    noun: 'file',
  },
];

export const isFile = (c: Case) => c.type === 'md5' || c.type === 'sha1' || c.type === 'sha256';
