import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { silentLogger } from '../logging/logger.js';
import { toStixBundle } from '../stix/to-stix-bundle.js';
import { ListLoadError } from './list-load-error.js';
import { loadLocalList, parseLocalList } from './local-list.js';

const SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';

/** A bundle as another producer might publish it: markings, a malware object, relationships, ranges, AND. */
const FOREIGN_BUNDLE = {
  type: 'bundle',
  id: 'bundle--5d0092c5-5f74-4287-9642-33f4c354e56d',
  objects: [
    {
      type: 'marking-definition',
      spec_version: '2.1',
      id: 'marking-definition--34098fce-860f-48ae-8e50-ebd3cc5e41da',
      created: '2017-01-20T00:00:00.000Z',
      definition_type: 'tlp',
      name: 'TLP:GREEN',
      definition: { tlp: 'green' },
    },
    {
      type: 'indicator',
      spec_version: '2.1',
      id: 'indicator--8e2e2d2b-17d4-4cbf-938f-98ee46b3cd3f',
      created: '2024-05-01T00:00:00.000Z',
      modified: '2024-05-01T00:00:00.000Z',
      indicator_types: ['malicious-activity'],
      pattern: "[ipv4-addr:value = '203.0.113.0/24' OR ipv4-addr:value = '198.51.100.7']",
      pattern_type: 'stix',
      valid_from: '2024-05-01T00:00:00Z',
      object_marking_refs: ['marking-definition--34098fce-860f-48ae-8e50-ebd3cc5e41da'],
    },
    {
      type: 'indicator',
      spec_version: '2.1',
      id: 'indicator--1ed8caa7-a708-4706-b651-f1186ede6ca1',
      created: '2024-05-01T00:00:00.000Z',
      modified: '2024-05-01T00:00:00.000Z',
      pattern: `[file:hashes.'SHA-1' = '${SHA1}'] OR [domain-name:value = 'c2.evil.com']`,
      pattern_type: 'stix',
      valid_from: '2024-05-01T00:00:00Z',
    },
    {
      type: 'indicator',
      spec_version: '2.1',
      id: 'indicator--c2e5b1f0-3f0a-4f0e-9d4b-0a3c6b5d7e8f',
      created: '2024-05-01T00:00:00.000Z',
      modified: '2024-05-01T00:00:00.000Z',
      pattern: "[file:name = 'invoice.exe' AND file:size = 1024]",
      pattern_type: 'stix',
      valid_from: '2024-05-01T00:00:00Z',
    },
    {
      type: 'malware',
      spec_version: '2.1',
      id: 'malware--31b940d4-6f7f-459a-80ea-9c1f17b5891b',
      created: '2024-05-01T00:00:00.000Z',
      modified: '2024-05-01T00:00:00.000Z',
      name: 'Poison Ivy',
      is_family: true,
    },
    {
      type: 'relationship',
      spec_version: '2.1',
      id: 'relationship--44298a74-ba52-4f0c-87a3-1824e67d7fad',
      created: '2024-05-01T00:00:00.000Z',
      modified: '2024-05-01T00:00:00.000Z',
      relationship_type: 'indicates',
      source_ref: 'indicator--1ed8caa7-a708-4706-b651-f1186ede6ca1',
      target_ref: 'malware--31b940d4-6f7f-459a-80ea-9c1f17b5891b',
    },
  ],
};

describe('a local list of format stix', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-stix-list-'));
    file = join(dir, 'feed.json');
    await writeFile(file, `\uFEFF${JSON.stringify(FOREIGN_BUNDLE)}`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('matches what the patterns name, address ranges included, and reports what it could not use', async () => {
    const list = await loadLocalList({ name: 'partner', file, format: 'stix' });
    expect(list.format).toBe('stix');
    expect(list.entries).toBe(4);
    expect(list.match(parseIndicator('203.0.113.99'))).toEqual({ entry: '203.0.113.0/24' });
    expect(list.match(parseIndicator('198.51.100.7'))).toEqual({ entry: '198.51.100.7' });
    expect(list.match(parseIndicator(SHA1))).toEqual({ entry: SHA1 });
    expect(list.match(parseIndicator('c2.evil.com'))).toEqual({ entry: 'c2.evil.com' });
    expect(list.match(parseIndicator('evil.com'))).toBeUndefined();
    expect(list.skipped).toBe(1);
    expect(list.firstSkipped).toEqual([
      {
        line: 4,
        entry: 'indicator--c2e5b1f0-3f0a-4f0e-9d4b-0a3c6b5d7e8f',
        reason:
          "its pattern: file:name = 'invoice.exe' AND file:size = 1024 joins comparisons with AND (all must hold), which no single indicator expresses",
      },
    ]);
    expect(list.lookup(parseIndicator('198.51.100.7'))).toMatchObject({
      status: 'ok',
      verdict: 'malicious',
      evidence: ['listed in local list "partner"'],
    });
  });

  it("follows the list's match mode: host by default (URLs on a listed host, names under a domain), exact on demand", () => {
    const text = JSON.stringify(FOREIGN_BUNDLE);
    const host = parseLocalList(text, { name: 'h', format: 'stix' });
    const exact = parseLocalList(text, { name: 'e', format: 'stix', match: 'exact' });
    for (const value of ['http://198.51.100.7/x', 'a.c2.evil.com', 'http://203.0.113.5/']) {
      expect(host.match(parseIndicator(value)), value).toBeDefined();
      expect(exact.match(parseIndicator(value)), value).toBeUndefined();
    }
    expect(exact.match(parseIndicator('203.0.113.5'))).toEqual({ entry: '203.0.113.0/24' });
  });

  it('refuses a file that is not a STIX bundle, naming it', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"type": "report"}');
    const loading = loadLocalList({ name: 'bad', file: bad, format: 'stix' });
    await expect(loading).rejects.toThrow(ListLoadError);
    await expect(loading).rejects.toThrow(
      `Cannot load list ${bad}: not a STIX bundle: type: expected "bundle", got "report"`,
    );
    expect(() => parseLocalList('not json', { name: 'x', format: 'stix' })).toThrow(
      /^Cannot load list local list "x": not a STIX bundle: not JSON \(/,
    );
  });

  it('is what lists: [{name, file, format: "stix"}] loads, so that a threatlib bundle answers offline', async () => {
    const published = join(dir, 'threats.json');
    const bundle = toStixBundle(
      [
        { indicator: "http://phish.com/login?next=it's]\\", type: 'url', confidence: 90, verdict: 'malicious' },
        { indicator: "o'brien@phish.com", type: 'email', confidence: 80, verdict: 'malicious' },
      ],
      { now: 0 },
    );
    await writeFile(published, JSON.stringify(bundle));
    const client = new ThreatClient(
      { sources: [], lists: [{ name: 'ours', file: published, format: 'stix' }] },
      { env: false, logger: silentLogger },
    );
    try {
      for (const indicator of ['http://phish.com/login?next=it%27s]\\', "o'brien@phish.com"]) {
        const result = await client.correlate(indicator);
        expect(result.results, indicator).toEqual([
          expect.objectContaining({ feed: 'list:ours', status: 'ok', verdict: 'malicious' }),
        ]);
      }
      const other = await client.correlate('http://phish.com/other');
      expect(other.results[0]).toMatchObject({ feed: 'list:ours', status: 'not_found' });
    } finally {
      await client.stop();
    }
  });
});
