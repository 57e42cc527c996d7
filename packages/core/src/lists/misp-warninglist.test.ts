import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { builtinWarninglists } from './builtin-warninglists.js';
import { ListLoadError } from './list-load-error.js';
import { compileMispWarninglist, loadMispWarninglist } from './misp-warninglist.js';
import type { Warninglist } from './warninglist.js';
import { WarninglistSet } from './warninglist-set.js';

const shared = (name: string): URL => new URL(`../../../../../shared/data/warninglists/${name}`, import.meta.url);

describe('MISP warninglists from /work/shared', () => {
  let publicDns: Warninglist;
  let tranco: Warninglist;
  let cisco: Warninglist;
  let emptyHashes: Warninglist;
  let rfc1918: Warninglist;

  beforeAll(async () => {
    publicDns = await loadMispWarninglist(shared('public-dns-v4.json'));
    tranco = await loadMispWarninglist(shared('tranco10k.json'));
    cisco = await loadMispWarninglist(shared('cisco_top1000.json'));
    emptyHashes = await loadMispWarninglist(shared('empty-hashes.json'));
    rfc1918 = await loadMispWarninglist(shared('rfc1918.json'));
  });

  it('cidr: 8.8.8.8 is a public DNS resolver, and the evidence names the list and the entry', () => {
    expect(publicDns.type).toBe('cidr');
    expect(publicDns.match(parseIndicator('8.8.8.8'))).toEqual({
      list: 'List of known IPv4 public DNS resolvers',
      entry: '8.8.8.8/32',
      reason: 'on warninglist "List of known IPv4 public DNS resolvers" (8.8.8.8/32)',
    });
    expect(publicDns.match(parseIndicator('8.8.8.9'))).toBeUndefined();
  });

  it('cidr: a range matches every address in it, and only the types matching_attributes cover', () => {
    expect(rfc1918.match(parseIndicator('172.31.255.1'))?.entry).toBe('172.16.0.0/12');
    expect(rfc1918.match(parseIndicator('172.32.0.1'))).toBeUndefined();
    // rfc1918's matching_attributes are IP attributes only, so a URL on a private address is not its business.
    expect(rfc1918.match(parseIndicator('http://10.0.0.1/admin'))).toBeUndefined();
  });

  it('hostname: a listed name, a name under it and a URL on it match; its parent does not', () => {
    expect(tranco.type).toBe('hostname');
    expect(tranco.match(parseIndicator('wikipedia.org'))?.entry).toBe('wikipedia.org');
    expect(tranco.match(parseIndicator('en.m.wikipedia.org'))?.entry).toBe('wikipedia.org');
    expect(tranco.match(parseIndicator('https://en.wikipedia.org/wiki/Main_Page'))).toMatchObject({
      list: 'Top 10K most-used sites from Tranco',
      entry: 'wikipedia.org',
    });
    // 9news.com.au is listed; com.au (its parent) is a public suffix, not a listed site.
    expect(tranco.match(parseIndicator('9news.com.au'))?.entry).toBe('9news.com.au');
    expect(tranco.match(parseIndicator('com.au'))).toBeUndefined();
    expect(tranco.match(parseIndicator('notwikipedia.org'))).toBeUndefined();
  });

  it('string: exact values only, as MISP compares them (no parent-domain matching)', () => {
    expect(cisco.type).toBe('string');
    expect(cisco.match(parseIndicator('google.com'))?.entry).toBe('google.com');
    expect(cisco.match(parseIndicator('GOOGLE.com.'))?.entry).toBe('google.com');
    expect(cisco.match(parseIndicator('unlisted-name.google.com'))).toBeUndefined();
  });

  it('string: the empty-file hashes match; entries of types threatlib has no indicator for are reported', () => {
    for (const hash of [
      'd41d8cd98f00b204e9800998ecf8427e',
      'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ]) {
      expect(emptyHashes.match(parseIndicator(hash))?.list).toBe('List of known hashes for empty files');
    }
    // SHA-512, SHA-224 and ssdeep entries can never match an md5/sha1/sha256 indicator.
    expect(emptyHashes.ignored).toBe(3);
    expect(emptyHashes.firstIgnored.map((skip) => skip.entry)).toContain('3::');
  });
});

describe('builtinWarninglists', () => {
  const builtins = new WarninglistSet(builtinWarninglists());

  it.each([
    ['10.1.2.3', '10.0.0.0/8', 'RFC 1918'],
    ['192.168.0.1', '192.168.0.0/16', 'RFC 1918'],
    ['127.0.0.1', '127.0.0.0/8', 'RFC 1122'],
    ['100.64.1.1', '100.64.0.0/10', 'RFC 6598'],
    ['169.254.169.254', '169.254.0.0/16', 'RFC 3927'],
    ['239.255.255.250', '224.0.0.0/4', 'RFC 5771'],
    ['255.255.255.255', '255.255.255.255/32', 'RFC 919'],
    ['198.19.0.1', '198.18.0.0/15', 'RFC 2544'],
    ['::1', '::1/128', 'RFC 4291'],
    ['::', '::/128', 'RFC 4291'],
    ['fe80::1', 'fe80::/10', 'RFC 4291'],
    ['fd12:3456::1', 'fc00::/7', 'RFC 4193'],
    ['ff02::1', 'ff00::/8', 'RFC 4291'],
    ['::ffff:192.168.1.1', '192.168.0.0/16', 'RFC 1918'],
    ['http://127.0.0.1:8080/admin', '127.0.0.0/8', 'RFC 1122'],
    ['http://[fe80::1]/', 'fe80::/10', 'RFC 4291'],
  ])('%s is special-use (%s, %s)', (value, entry, rfc) => {
    const match = builtins.match(parseIndicator(value));
    expect(match?.entry).toBe(entry);
    expect(match?.reason).toContain(rfc);
  });

  it('answers the empty-file hashes', () => {
    expect(builtins.match(parseIndicator('d41d8cd98f00b204e9800998ecf8427e'))?.reason).toBe(
      'on warninglist "Hashes of the empty file (threatlib built-in)" (d41d8cd98f00b204e9800998ecf8427e: MD5 of the empty file)',
    );
    expect(builtins.match(parseIndicator('da39a3ee5e6b4b0d3255bfef95601890afd80709'))).toBeDefined();
    expect(
      builtins.match(parseIndicator('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')),
    ).toBeDefined();
  });

  it('leaves public addresses and the documentation ranges examples use as malicious stand-ins alone', () => {
    for (const value of ['8.8.8.8', '192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '2606:4700::1111']) {
      expect(builtins.match(parseIndicator(value)), value).toBeUndefined();
    }
  });
});

describe('WarninglistSet', () => {
  it('fromConfig loads the built-ins first, then the files in order, and reports sizes and names', async () => {
    const set = await WarninglistSet.fromConfig({ files: [shared('public-dns-v4.json'), shared('tranco10k.json')] });
    expect(set.size).toBe(5);
    expect(set.names.slice(3)).toEqual([
      'List of known IPv4 public DNS resolvers',
      'Top 10K most-used sites from Tranco',
    ]);
    expect(set.match(parseIndicator('8.8.8.8'))?.list).toBe('List of known IPv4 public DNS resolvers');
    expect(set.match(parseIndicator('10.0.0.1'))?.list).toBe('Special-use IPv4 addresses (threatlib built-in)');
    expect(set.match(parseIndicator('http://mail.google.com/'))?.entry).toBe('google.com');
    expect(set.match(parseIndicator('45.148.10.240'))).toBeUndefined();
  });

  it('fromConfig without the built-ins does not answer private addresses', async () => {
    const set = await WarninglistSet.fromConfig({ builtin: false, files: [shared('public-dns-v4.json')] });
    expect(set.names).toEqual(['List of known IPv4 public DNS resolvers']);
    expect(set.match(parseIndicator('10.0.0.1'))).toBeUndefined();
  });

  it('refuses two lists with the same name, since evidence could not tell them apart', () => {
    const list = { name: 'Mine', description: '', version: 1, type: 'string', list: ['evil.com'] };
    expect(() => new WarninglistSet([compileMispWarninglist(list), compileMispWarninglist(list)])).toThrow(
      /name "Mine" is already used/,
    );
  });
});

describe('loadMispWarninglist errors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-lists-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function failure(promise: Promise<unknown>): Promise<ListLoadError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ListLoadError.isInstance(error)).toBe(true);
    return error as ListLoadError;
  }

  it('a missing file names the file', async () => {
    const file = join(dir, 'missing.json');
    const error = await failure(loadMispWarninglist(file));
    expect(error.code).toBe('LIST_LOAD_FAILED');
    expect(error.source).toBe(file);
    expect(error.message).toBe(`Cannot load list ${file}: the file does not exist`);
  });

  it('a file that is not JSON', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"name": "x", "list": [');
    const error = await failure(loadMispWarninglist(file));
    expect(error.message).toMatch(new RegExp(`^Cannot load list ${file.replace(/[\\.]/g, '\\$&')}: not JSON \\(`));
  });

  it('JSON of the wrong shape says which field is wrong', async () => {
    const file = join(dir, 'shape.json');
    await writeFile(file, JSON.stringify({ name: 'x', list: 'evil.com' }));
    const error = await failure(loadMispWarninglist(file));
    expect(error.problem).toMatch(/^not a MISP warninglist: list: /);
  });

  it('an unknown MISP list type', async () => {
    const error = await failure(loadMispWarninglist({ name: 'Odd', type: 'bloom', list: ['x'] }));
    expect(error.message).toBe(
      'Cannot load list warninglist "Odd": unknown warninglist type "bloom" (expected one of string, substring, hostname, cidr, regex)',
    );
  });

  it('a regular expression the linear-time engine cannot run names the list, the entry and why', async () => {
    const file = join(dir, 'regex.json');
    await writeFile(file, JSON.stringify({ name: 'Rx', type: 'regex', list: ['/^ok$/', '/^(\\w+)-\\1$/'] }));
    const error = await failure(loadMispWarninglist(file));
    expect(error.source).toBe(file);
    expect(error.problem).toBe(
      'warninglist "Rx": entry "/^(\\\\w+)-\\\\1$/" is not a usable regular expression: it has the back-reference \\1, ' +
        'which needs a backtracking engine: list patterns run on RE2, whose lookups take time linear in the value, so ' +
        'that no entry can stall one (write an octal character as \\0nn or \\o{…})',
    );
    const atomic = await failure(loadMispWarninglist({ name: 'Rx1', type: 'regex', list: ['/(?>atomic)/'] }));
    expect(atomic.message).toMatch(
      /^Cannot load list warninglist "Rx1": warninglist "Rx1": entry "\/\(\?>atomic\)\/" .* atomic group/,
    );
    const invalid = await failure(loadMispWarninglist({ name: 'Rx2', type: 'regex', list: ['/a(b/'] }));
    expect(invalid.problem).toMatch(
      /entry "\/a\(b\/" is not a usable regular expression: it cannot be compiled by RE2: .*missing closing \)/,
    );
    const large = await failure(
      loadMispWarninglist({ name: 'Rx3', type: 'regex', list: ['/^(?:[a-z]{1,63}\\.){1,8}$/'] }),
    );
    expect(large.problem).toMatch(/it compiles to \d+ instructions, more than the 400 a list pattern may have/);
  });

  it('tolerates unknown fields, a missing version and type, and entries mapped to comments (as MISP does)', async () => {
    const list = await loadMispWarninglist({
      name: 'Commented',
      description: 'd',
      list: { 'evil.com': 'our own sinkhole', '203.0.113.5': '' },
      matching_attributes: ['domain', 'ip-dst'],
      some_future_field: true,
    });
    expect(list.type).toBe('string');
    expect(list.version).toBeUndefined();
    expect(list.match(parseIndicator('evil.com'))?.reason).toBe(
      'on warninglist "Commented" (evil.com: our own sinkhole)',
    );
    expect(list.match(parseIndicator('203.0.113.5'))?.reason).toBe('on warninglist "Commented" (203.0.113.5)');
  });
});

describe('substring and regex warninglists', () => {
  it('substring: any listed text inside the value, restricted to the listed attribute types', () => {
    const list = compileMispWarninglist({
      name: 'Sinkholes',
      type: 'substring',
      list: ['sinkhole', '.shadowserver.'],
      matching_attributes: ['domain', 'hostname', 'url'],
    });
    expect(list.match(parseIndicator('sinkhole-17.abuse.ch'))?.entry).toBe('sinkhole');
    expect(list.match(parseIndicator('http://x.shadowserver.org/a'))?.entry).toBe('.shadowserver.');
    expect(list.match(parseIndicator('sink.example.com'))).toBeUndefined();
    expect(list.match(parseIndicator('sinkhole@example.com'))).toBeUndefined();
  });

  it('regex: PCRE patterns with delimiters and modifiers', () => {
    const list = compileMispWarninglist({
      name: 'Patterns',
      type: 'regex',
      list: ['#^https?://(?P<host>[a-z]+)\\.example\\.com/#i', '/^[[:digit:]]+\\.in-addr\\.arpa$/'],
      matching_attributes: ['url', 'domain'],
    });
    expect(list.match(parseIndicator('https://cdn.example.com/x'))?.entry).toBe(
      '#^https?://(?P<host>[a-z]+)\\.example\\.com/#i',
    );
    expect(list.match(parseIndicator('https://c-dn.example.com/x'))).toBeUndefined();
  });
});
