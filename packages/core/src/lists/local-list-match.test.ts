import { describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { type LocalListOptions, parseLocalList } from './local-list.js';

const ENTRIES = [
  '198.51.100.7',
  '2001:db8::66',
  '203.0.113.128/25',
  'bad.example.com',
  'hxxp://phish.example.org/login.php#step1',
  'd41d8cd98f00b204e9800998ecf8427e',
  'billing@bad.example.net',
].join('\n');

function list(options: Partial<LocalListOptions> = {}) {
  return parseLocalList(ENTRIES, { name: 'mine', ...options });
}

const line = (indicator: string, options: Partial<LocalListOptions> = {}) =>
  list(options).match(parseIndicator(indicator))?.line;

describe('a local list matches hosts by default (match: host)', () => {
  it('says so', () => {
    expect(list().matching).toBe('host');
    expect(list({ match: 'exact' }).matching).toBe('exact');
  });

  it.each([
    ['198.51.100.7', 1],
    ['http://198.51.100.7:8080/bins/x', 1],
    ['198.51.100.7/x', 1],
    ['::ffff:198.51.100.7', 1],
    ['http://[::ffff:198.51.100.7]/', 1],
    ['2001:db8::66', 2],
    ['http://[2001:db8:0::66]/x', 2],
    ['203.0.113.200', 3],
    ['https://203.0.113.200/a', 3],
    ['bad.example.com', 4],
    ['www.bad.example.com', 4],
    ['https://cdn.bad.example.com/k.js', 4],
    ['admin@bad.example.com', 4],
    ['http://phish.example.org/login.php', 5],
    ['http://phish.example.org/login.php#step2', 5],
    ['D41D8CD98F00B204E9800998ECF8427E', 6],
    ['billing@bad.example.net', 7],
  ])('%j is listed (line %i)', (indicator, expected) => {
    expect(line(indicator)).toBe(expected);
  });

  it.each([
    '198.51.100.8',
    'http://198.51.100.8/',
    'example.com',
    'notbad.example.com',
    'http://phish.example.org/login.php?x',
    'http://phish.example.org/',
    'other@bad.example.net',
    'bad.example.net',
  ])('%j is not', (indicator) => {
    expect(line(indicator)).toBeUndefined();
  });

  it('evidence names the line, and the entry when the indicator is not the entry itself', () => {
    expect(list().lookup(parseIndicator('198.51.100.7')).evidence).toEqual(['listed in local list "mine" (line 1)']);
    expect(list().lookup(parseIndicator('http://198.51.100.7/x')).evidence).toEqual([
      'listed in local list "mine" (line 1: 198.51.100.7)',
    ]);
    expect(list().lookup(parseIndicator('a.bad.example.com')).evidence).toEqual([
      'listed in local list "mine" (line 4: bad.example.com)',
    ]);
  });

  it('an allowlist clears URLs on a listed host too', () => {
    const allow = parseLocalList('corp.example.com\n', { name: 'allow', verdict: 'clean' });
    expect(allow.lookup(parseIndicator('https://corp.example.com/sso')).verdict).toBe('clean');
  });

  it('a CSV list matches the same way', () => {
    const csv = parseLocalList('host\nbad.example.com\n', { name: 'c', format: 'csv', column: 'host' });
    expect(csv.match(parseIndicator('http://x.bad.example.com/'))?.line).toBe(2);
  });
});

describe('match: exact', () => {
  it.each([
    ['198.51.100.7', 1],
    ['::ffff:198.51.100.7', 1],
    ['203.0.113.200', 3],
    ['bad.example.com', 4],
    ['http://phish.example.org/login.php#step1', 5],
    ['billing@bad.example.net', 7],
  ])('%j is listed (line %i)', (indicator, expected) => {
    expect(line(indicator, { match: 'exact' })).toBe(expected);
  });

  it.each([
    'http://198.51.100.7/x',
    'https://203.0.113.200/a',
    'www.bad.example.com',
    'http://bad.example.com/',
    'admin@bad.example.com',
    'http://phish.example.org/login.php',
  ])('%j is not', (indicator) => {
    expect(line(indicator, { match: 'exact' })).toBeUndefined();
  });
});

describe('the match option', () => {
  it('must be host or exact', () => {
    expect(() => list({ match: 'fuzzy' as 'host' })).toThrow(
      'Cannot load list local list "mine": unknown match "fuzzy" (expected one of host, exact)',
    );
  });

  it('does not apply to a MISP warninglist, whose type says how it matches', () => {
    expect(() =>
      parseLocalList('{"name":"x","type":"hostname","list":["a.com"]}', {
        name: 'w',
        format: 'misp-warninglist',
        match: 'exact',
      }),
    ).toThrow(/"match" applies to plain, csv and stix lists/);
  });
});
