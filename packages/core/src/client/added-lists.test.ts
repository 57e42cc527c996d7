import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLocalList } from '../lists/local-list.js';
import { StixIndicatorList } from '../lists/stix-indicator-list.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient } from './threat-client.js';

const directory = mkdtempSync(join(tmpdir(), 'threatlib-client-lists-'));
const FILE = join(directory, 'file.txt');
writeFileSync(FILE, '203.0.113.250\nnot an indicator\n');

const clients: ThreatClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

function client() {
  const c = new ThreatClient(
    {
      sources: [],
      strategy: 'aggressive',
      lists: [{ name: 'file', file: FILE }],
      security: { enforceHttps: false },
      caching: { enabled: false },
    },
    { env: false, logger: silentLogger },
  );
  clients.push(c);
  return c;
}

const indicator = (value: string) => ({
  type: 'indicator',
  spec_version: '2.1',
  id: 'indicator--00000000-0000-4000-8000-000000000001',
  created: '2026-01-01T00:00:00.000Z',
  modified: '2026-01-01T00:00:00.000Z',
  pattern: `[ipv4-addr:value = '${value}']`,
  pattern_type: 'stix',
  valid_from: '2026-01-01T00:00:00Z',
});

describe('client.addList', () => {
  it('asks an added list on every later scan, as it changes, with its weight', async () => {
    const c = client();
    expect((await c.correlate('198.51.100.7')).isThreat).toBe(false);
    const inbox = new StixIndicatorList({ name: 'inbox' });
    c.addList(inbox, { weight: 0.4 });
    inbox.upsert([indicator('198.51.100.7')]);
    const result = await c.correlate('198.51.100.7');
    expect(result.isThreat).toBe(true);
    expect(result.results.find((r) => r.feed === 'list:inbox')).toMatchObject({ status: 'ok', verdict: 'malicious' });
    expect(result.contributions.find((r) => r.feed === 'list:inbox')).toMatchObject({ weight: 0.4 });
    // A LocalList made from text is a list too.
    c.addList(parseLocalList('198.51.100.9\n', { name: 'typed' }));
    expect((await c.correlate('198.51.100.9')).isThreat).toBe(true);
    expect(c.removeList('inbox')).toBe(true);
    expect(c.removeList('inbox')).toBe(false);
    expect((await c.correlate('198.51.100.7')).results.some((r) => r.feed === 'list:inbox')).toBe(false);
  });

  it('refuses a name already taken, a name that is not a list name, a list without lookup and a bad weight', () => {
    const c = client();
    c.addList(new StixIndicatorList({ name: 'inbox' }));
    expect(() => c.addList(new StixIndicatorList({ name: 'file' }))).toThrow(
      /name: a list named "file" is already asked/,
    );
    expect(() => c.addList(new StixIndicatorList({ name: 'inbox' }))).toThrow(/a list named "inbox" is already asked/);
    expect(() => c.addList(new StixIndicatorList({ name: 'has space' }))).toThrow(/name: expected letters, digits/);
    expect(() => c.addList({ name: 'nolookup' } as never)).toThrow(/lookup: expected a lookup\(indicator\) function/);
    expect(() => c.addList(new StixIndicatorList({ name: 'heavy' }), { weight: 2 })).toThrow(
      /weight: expected a number from 0 to 1/,
    );
  });

  it('listStatus says what each list holds: the configured ones, then those added', async () => {
    const c = client();
    const inbox = new StixIndicatorList({ name: 'inbox' });
    inbox.upsert([indicator('198.51.100.7'), { type: 'malware', id: 'malware--1' }]);
    c.addList(inbox);
    expect(await c.listStatus()).toEqual([
      expect.objectContaining({ name: 'file', kind: 'file', entries: 1, skipped: 1 }),
      expect.objectContaining({
        name: 'inbox',
        kind: 'added',
        weight: 0.7,
        indicators: 1,
        entries: 1,
        skippedByReason: { 'not-indicator': 1 },
      }),
    ]);
  });
});
