import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { ListLoadError } from './list-load-error.js';
import { type LocalList, loadLocalList, parseLocalList } from './local-list.js';

const IPSUM = new URL('../../../../../shared/data/ipsum-level3.txt', import.meta.url);
const EXAMPLE = new URL('../../examples/lists/example-blocklist.txt', import.meta.url);

describe('a local list loaded from ipsum-level3.txt', () => {
  let ipsum: LocalList;
  beforeAll(async () => {
    ipsum = await loadLocalList({ name: 'ipsum', file: IPSUM });
  });

  it('loads every line', () => {
    expect(ipsum.entries).toBe(14_217);
    expect(ipsum.skipped).toBe(0);
    expect(ipsum.id).toBe('list:ipsum');
  });

  it('answers a listed address ok / malicious, with evidence naming the list and the line', () => {
    // Line 100 of the snapshot.
    expect(ipsum.match(parseIndicator('51.222.85.30'))).toEqual({ entry: '51.222.85.30', line: 100 });
    expect(ipsum.lookup(parseIndicator('51.222.85.30'))).toEqual({
      status: 'ok',
      verdict: 'malicious',
      score: 1,
      evidence: ['listed in local list "ipsum" (line 100)'],
      tags: ['local-list'],
      categories: [],
      malwareFamilies: [],
      references: [],
    });
  });

  it('answers an address not on it not_found', () => {
    const result = ipsum.lookup(parseIndicator('203.0.113.200'));
    expect(result.status).toBe('not_found');
    expect(result.verdict).toBe('unknown');
    expect(result.score).toBe(0);
    expect(result.evidence).toEqual(['not in local list "ipsum"']);
  });
});

describe('plain format', () => {
  it('skips blanks and comments, refangs, reads ranges and wildcards, and reports skipped lines', () => {
    const list = parseLocalList(
      [
        '# my blocklist',
        '',
        '198.51.100[.]7   # defanged, with a trailing comment',
        '10.20.0.0/16',
        '*.evil.com',
        'hxxps://phish.example.com/login',
        'not an indicator',
        '999.1.1.1',
        '198.51.100.7',
      ].join('\n'),
      { name: 'mine', verdict: 'suspicious' },
    );
    expect(list.entries).toBe(4);
    expect(list.duplicates).toBe(1);
    expect(list.skipped).toBe(2);
    expect(list.firstSkipped).toEqual([
      { line: 7, entry: 'not an indicator', reason: 'contains whitespace (U+0020); an indicator is a single token' },
      { line: 8, entry: '999.1.1.1', reason: 'not a valid ipv4: octet 999 is out of range (0-255)' },
    ]);

    expect(list.match(parseIndicator('198.51.100.7'))).toEqual({ entry: '198.51.100.7', line: 3 });
    expect(list.lookup(parseIndicator('10.20.30.40'))).toMatchObject({
      status: 'ok',
      verdict: 'suspicious',
      score: 0.5,
      evidence: ['listed in local list "mine" (line 4: 10.20.0.0/16)'],
    });
    expect(list.match(parseIndicator('evil.com'))).toEqual({ entry: '*.evil.com', line: 5 });
    expect(list.match(parseIndicator('cdn.evil.com'))).toEqual({ entry: '*.evil.com', line: 5 });
    expect(list.match(parseIndicator('http://a.evil.com/x'))?.line).toBe(5);
    expect(list.match(parseIndicator('https://phish.example.com/login'))?.line).toBe(6);
    expect(list.match(parseIndicator('phish.example.com'))).toBeUndefined();
    expect(list.match(parseIndicator('10.21.0.1'))).toBeUndefined();
  });

  it('reports at most five skipped lines but counts them all', () => {
    const list = parseLocalList(Array.from({ length: 8 }, (_, i) => `bad entry ${i}`).join('\n'), { name: 'bad' });
    expect(list.skipped).toBe(8);
    expect(list.firstSkipped).toHaveLength(5);
    expect(list.entries).toBe(0);
  });

  it('an allowlist answers clean with score 0', () => {
    const list = parseLocalList('corp.example.com\n', { name: 'allow', verdict: 'clean' });
    expect(list.lookup(parseIndicator('corp.example.com'))).toMatchObject({ status: 'ok', verdict: 'clean', score: 0 });
  });

  it('the shipped example blocklist loads cleanly and answers its documentation-range entries', async () => {
    const list = await loadLocalList({ name: 'example', file: EXAMPLE });
    expect(list.skipped).toBe(0);
    expect(list.entries).toBe(27);
    expect(list.lookup(parseIndicator('203.0.113.66')).verdict).toBe('malicious');
    expect(list.lookup(parseIndicator('203.0.113.200')).evidence[0]).toMatch(/203\.0\.113\.128\/25/);
    expect(list.lookup(parseIndicator('77.90.185.20')).status).toBe('ok');
    expect(list.lookup(parseIndicator('www.example.net')).status).toBe('ok');
  });
});

describe('csv format', () => {
  it('reads a URLhaus-style export: # comments, the header in the last comment, quoted fields', () => {
    const text = [
      '################################################################',
      '# abuse.ch URLhaus Database Dump (CSV - recent URLs only)      #',
      '################################################################',
      '#',
      '# id,dateadded,url,url_status,last_online,threat,tags,urlhaus_link,reporter',
      '"3001","2026-08-20 10:00:00","http://198.51.100.9:8080/bins/x.arm7","online","2026-08-20 10:00:00","malware_download","elf,mirai","https://urlhaus.abuse.ch/url/3001/","r1"',
      '"3002","2026-08-20 10:01:00","hxxp://phish.example.com/a,b?c=""d""","offline","","malware_download","","https://urlhaus.abuse.ch/url/3002/","r2"',
    ].join('\r\n');
    const list = parseLocalList(text, { name: 'urlhaus', format: 'csv', column: 'url' });
    expect(list.entries).toBe(2);
    expect(list.skipped).toBe(0);
    expect(list.match(parseIndicator('http://198.51.100.9:8080/bins/x.arm7'))).toEqual({
      entry: 'http://198.51.100.9:8080/bins/x.arm7',
      line: 6,
    });
    expect(list.match(parseIndicator('http://phish.example.com/a,b?c="d"'))?.line).toBe(7);
  });

  it('finds a named column in a header row, and reads multi-line quoted fields', () => {
    const text = 'note,Indicator\n"line one\nline two",198.51.100.1\nplain,"203.0.113.4"\n';
    const list = parseLocalList(text, { name: 'h', format: 'csv', column: 'indicator' });
    expect(list.entries).toBe(2);
    expect(list.match(parseIndicator('198.51.100.1'))?.line).toBe(2);
    expect(list.match(parseIndicator('203.0.113.4'))?.line).toBe(4);
  });

  it('takes the first column by default or a column by index, and counts bad rows', () => {
    const text = '198.51.100.1,x\nnope,203.0.113.4\n"unterminated,1\n';
    const first = parseLocalList(text, { name: 'a', format: 'csv' });
    expect(first.entries).toBe(1);
    expect(first.skipped).toBe(2);
    expect(first.firstSkipped[1]).toEqual({ line: 3, entry: '', reason: 'a quoted field is never closed' });
    const second = parseLocalList(text, { name: 'b', format: 'csv', column: 1 });
    expect(second.match(parseIndicator('203.0.113.4'))?.line).toBe(2);
  });

  it('a named column missing from the header is an error naming what was found', () => {
    expect(() => parseLocalList('id,host\n1,evil.com\n', { name: 'c', format: 'csv', column: 'url' })).toThrow(
      'Cannot load list local list "c": CSV column "url" is not in the header row (line 1) or the comment line ' +
        'before it; found "id", "host"',
    );
  });
});

describe('misp-warninglist format and errors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-local-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('matches as the warninglist would, under the local list name and verdict', async () => {
    const file = join(dir, 'hosts.json');
    await writeFile(file, JSON.stringify({ name: 'Bad hosts', type: 'hostname', list: ['evil.com', 'not a host'] }));
    const list = await loadLocalList({ name: 'bad-hosts', file, format: 'misp-warninglist' });
    expect(list.skipped).toBe(1);
    expect(list.lookup(parseIndicator('www.evil.com')).evidence).toEqual([
      'listed in local list "bad-hosts" (evil.com)',
    ]);
  });

  it('a missing file is a ListLoadError naming it', async () => {
    const file = join(dir, 'nope.txt');
    const error = await loadLocalList({ name: 'x', file }).catch((e: unknown) => e);
    expect(ListLoadError.isInstance(error)).toBe(true);
    expect((error as ListLoadError).message).toBe(`Cannot load list ${file}: the file does not exist`);
  });

  it('invalid options are refused up front', async () => {
    await expect(
      loadLocalList({ name: 'x', file: join(dir, 'a'), format: 'xml' as 'csv' }).catch((e: unknown) => e),
    ).resolves.toMatchObject({ code: 'LIST_LOAD_FAILED', problem: expect.stringMatching(/unknown format "xml"/) });
    expect(() => parseLocalList('', { name: 'x', column: 'url' })).toThrow(/applies to the csv format only/);
  });
});
