import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThreatClient } from '../client/threat-client.js';
import { EXAMPLE_BLOCKLIST, quickStartClient } from './quick-start-client.test-suite.js';

// Issue 12, finding 2: the example list holds 45.148.10.240, malware.example.com and
// hxxp://phish.example.com/login.php, yet URLs on those hosts, names under that domain and addresses at it all came
// back `unknown`.
const clients: ThreatClient[] = [];
function client(...args: Parameters<typeof quickStartClient>): ThreatClient {
  const made = quickStartClient(...args);
  clients.push(made);
  return made;
}
afterAll(() => Promise.all(clients.map((c) => c.stop())));

async function listAnswer(c: ThreatClient, indicator: string) {
  const result = await c.correlate(indicator);
  return { verdict: result.verdict, list: result.results.find((r) => r.feed === 'list:example') };
}

describe('a blocklist entry catches the forms a user expects', () => {
  const quickStart = client();

  it.each([
    ['http://45.148.10.240/x', '45.148.10.240'],
    ['hxxp://45.148.10.240/x', '45.148.10.240'],
    ['45.148.10.240/x', '45.148.10.240'],
    ['https://45.148.10.240:8443/login?u=1', '45.148.10.240'],
    ['http://[::ffff:45.148.10.240]/', '45.148.10.240'],
    ['::ffff:45.148.10.240', '45.148.10.240'],
    ['http://malware.example.com/x', 'malware.example.com'],
    ['hxxps://malware[.]example[.]com/x', 'malware.example.com'],
    ['a.malware.example.com', 'malware.example.com'],
    ['http://b.a.malware.example.com/', 'malware.example.com'],
    ['user@malware.example.com', 'malware.example.com'],
    ['user@mx.malware.example.com', 'malware.example.com'],
    ['http://phish.example.com/login.php#account', 'http://phish.example.com/login.php'],
  ])('%j is malicious, matched by the entry %j', async (indicator, entry) => {
    const { verdict, list } = await listAnswer(quickStart, indicator);
    expect(list).toMatchObject({ status: 'ok', verdict: 'malicious' });
    expect(list?.evidence[0]).toContain(`listed in local list "example" (line `);
    expect(list?.evidence[0]).toContain(entry);
    expect(verdict).toBe('malicious');
  });

  it.each(['45.148.10.240', 'malware.example.com', 'hxxp://phish.example.com/login.php'])(
    '%j itself is still malicious',
    async (indicator) => {
      const { list } = await listAnswer(quickStart, indicator);
      expect(list).toMatchObject({ status: 'ok', verdict: 'malicious' });
    },
  );

  it.each([
    // Neighbours, parents and look-alikes are not the listed host.
    'http://45.148.10.241/x',
    'example.com',
    'http://example.com/malware.example.com',
    'notmalware.example.com',
    'malware.example.com.evil.net',
    'user@example.com',
    // A URL is the same URL only up to its fragment: another path or query is another URL.
    'http://phish.example.com/login.php?next=1',
    'http://phish.example.com/',
    // The host is evil.net; malware.example.com is only user info.
    'http://malware.example.com@evil.net/',
  ])('%j is not matched', async (indicator) => {
    const { list } = await listAnswer(quickStart, indicator);
    expect(list).toMatchObject({ status: 'not_found', verdict: 'unknown' });
  });
});

describe('a list with match: exact', () => {
  let exact: ThreatClient;
  beforeAll(() => {
    exact = client({
      lists: [{ name: 'example', file: EXAMPLE_BLOCKLIST, format: 'plain', verdict: 'malicious', match: 'exact' }],
    });
  });

  it.each([
    '45.148.10.240',
    'malware.example.com',
    'http://phish.example.com/login.php',
    // Explicit wildcards keep matching names under them.
    'a.example.net',
  ])('matches %j', async (indicator) => {
    const { list } = await listAnswer(exact, indicator);
    expect(list).toMatchObject({ status: 'ok', verdict: 'malicious' });
  });

  it.each([
    'http://45.148.10.240/x',
    'a.malware.example.com',
    'user@malware.example.com',
    'http://phish.example.com/login.php#account',
  ])('does not match %j', async (indicator) => {
    const { list } = await listAnswer(exact, indicator);
    expect(list).toMatchObject({ status: 'not_found', verdict: 'unknown' });
  });
});
