import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { indicatorForOutput } from '../indicators/indicator-for-output.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { exportMispFeed } from './export-misp-feed.js';
import { loadMispFeedList } from './load-misp-feed-list.js';
import { readMispEvent } from './read-misp-event.js';
import { type MispFeedInput, THREATLIB_MISP_ORG, toMispFeed } from './to-misp-feed.js';

const AT = '2026-03-01T10:00:00.000Z';
const SECONDS = String(Date.parse(AT) / 1000);

const correlation = (indicator: string, type: string, extra: Record<string, unknown> = {}) =>
  ({ indicator, type, confidence: 83.2, verdict: 'malicious', startedAt: AT, ...extra }) as MispFeedInput;

const alert = (extra: Record<string, unknown> = {}) =>
  ({
    id: 'alert-1',
    title: 'Phishing wave',
    severity: 'high',
    timestamp: AT,
    indicators: [{ type: 'domain', value: 'Phish.Example.org', confidence: 90, sources: ['feed_urls'] }],
    ...extra,
  }) as MispFeedInput;

describe('toMispFeed', () => {
  it('writes each correlation as an event of its indicator, in the fields and types MISP feeds carry', () => {
    const feed = toMispFeed(
      [
        correlation('198.51.100.7', 'ip', {
          riskScore: 9,
          results: [
            { feed: 'feed_otx', status: 'ok', verdict: 'malicious', score: 0.8, tags: ['botnet'] },
            { feed: 'feed_abuse', status: 'ok', verdict: 'clean' },
            { feed: 'feed_cti', status: 'timeout', verdict: 'unknown' },
          ],
        }),
      ],
      { tags: ['tlp:green'] },
    );
    expect(feed.events).toHaveLength(1);
    const event = feed.events[0]?.Event;
    const uuid = event?.uuid ?? '';
    expect(event).toEqual({
      analysis: '2',
      date: '2026-03-01',
      extends_uuid: '',
      info: 'threatlib: 198.51.100.7 is malicious (confidence 83)',
      protected: false,
      publish_timestamp: SECONDS,
      published: true,
      threat_level_id: '1',
      timestamp: SECONDS,
      uuid,
      Orgc: THREATLIB_MISP_ORG,
      Tag: [
        { colour: expect.stringMatching(/^#[0-9a-f]{6}$/), local: false, name: 'tlp:green', relationship_type: '' },
        {
          colour: expect.stringMatching(/^#[0-9a-f]{6}$/),
          local: false,
          name: 'threatlib:verdict="malicious"',
          relationship_type: '',
        },
      ],
      Attribute: [
        {
          category: 'Network activity',
          comment:
            'threatlib verdict: malicious, confidence 83; flagged by feed_otx (1 of 2 sources that answered); botnet',
          deleted: false,
          disable_correlation: false,
          timestamp: SECONDS,
          to_ids: true,
          type: 'ip-dst',
          uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          value: '198.51.100.7',
        },
      ],
    });
    expect(feed.manifest).toEqual({
      [uuid]: {
        Orgc: THREATLIB_MISP_ORG,
        Tag: event?.Tag,
        info: event?.info,
        date: '2026-03-01',
        analysis: 2,
        threat_level_id: 1,
        timestamp: Number(SECONDS),
      },
    });
    const md5 = createHash('md5').update('198.51.100.7').digest('hex');
    expect(feed.hashes).toEqual([[md5, uuid]]);
    expect(feed.files.map((file) => file.name)).toEqual([`${uuid}.json`, 'hashes.csv', 'manifest.json']);
    expect(feed.files[1]?.text).toBe(`${md5},${uuid}\n`);
  });

  it('maps each indicator type to a MISP attribute type and category; only flagged verdicts are for detection', () => {
    const feed = toMispFeed([
      correlation('2001:DB8::1', 'ipv6'),
      correlation('Evil.Example.com', 'hostname'),
      correlation('hxxp://evil[.]example.com/x', 'url', { verdict: 'suspicious' }),
      correlation('Bad@Phish.Example.org', 'email'),
      correlation('D41D8CD98F00B204E9800998ECF8427E', 'md5', { verdict: 'clean' }),
      correlation('da39a3ee5e6b4b0d3255bfef95601890afd80709', 'sha1', { verdict: 'unknown' }),
      correlation('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256'),
    ]);
    const attributes = feed.events.map((event) => event.Event.Attribute[0]);
    expect(
      attributes
        .map((a) => [a?.type, a?.category, a?.value, a?.to_ids])
        .sort((x, y) => String(x[2]).localeCompare(String(y[2]))),
    ).toEqual([
      ['ip-dst', 'Network activity', '2001:db8::1', true],
      ['email-src', 'Payload delivery', 'bad@phish.example.org', true],
      ['md5', 'Payload delivery', 'd41d8cd98f00b204e9800998ecf8427e', false],
      ['sha1', 'Payload delivery', 'da39a3ee5e6b4b0d3255bfef95601890afd80709', false],
      ['sha256', 'Payload delivery', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', true],
      ['domain', 'Network activity', 'evil.example.com', true],
      ['url', 'Network activity', 'http://evil.example.com/x', true],
    ]);
  });

  it('writes each alert as an event of its indicators, its description kept as a comment attribute', () => {
    const feed = toMispFeed([
      alert({
        description: 'seen in mail',
        indicators: [
          { type: 'domain', value: 'phish.example.org', confidence: 90, sources: ['feed_urls'] },
          { type: 'ip', value: '198.51.100.7', source: 'soc' },
          { type: 'domain', value: 'PHISH.example.org' },
        ],
      }),
    ]);
    const event = feed.events[0]?.Event;
    expect(event).toMatchObject({ info: 'Phishing wave', threat_level_id: '1', date: '2026-03-01' });
    expect(event?.Tag.map((tag) => tag.name)).toEqual(['threatlib:severity="high"']);
    expect(event?.Attribute.map((a) => [a.type, a.value, a.to_ids, a.comment])).toEqual([
      ['domain', 'phish.example.org', true, 'confidence 90; flagged by feed_urls'],
      ['ip-dst', '198.51.100.7', true, 'flagged by soc'],
      ['comment', 'seen in mail', false, ''],
    ]);
    expect(feed.hashes).toHaveLength(3);
  });

  it('gives the same input the same UUIDs in every export, and keeps the latest of one given twice', () => {
    const first = toMispFeed([correlation('198.51.100.7', 'ipv4'), alert()]);
    const again = toMispFeed([alert(), correlation('198.51.100.7', 'ip')]);
    expect(again.events.map((e) => e.Event.uuid)).toEqual(first.events.map((e) => e.Event.uuid));
    expect(again.events.flatMap((e) => e.Event.Attribute.map((a) => a.uuid))).toEqual(
      first.events.flatMap((e) => e.Event.Attribute.map((a) => a.uuid)),
    );
    const later = toMispFeed([
      correlation('198.51.100.7', 'ipv4', { verdict: 'suspicious', startedAt: '2026-03-02T00:00:00Z' }),
      correlation('198.51.100.7', 'ipv4'),
    ]);
    expect(later.events).toHaveLength(1);
    expect(later.events[0]?.Event.info).toBe('threatlib: 198.51.100.7 is suspicious (confidence 83)');
    // Another alert, another event; the same indicator in two events has two attribute UUIDs.
    const two = toMispFeed([alert(), alert({ id: 'alert-2' })]);
    expect(new Set(two.events.flatMap((e) => e.Event.Attribute.map((a) => a.uuid))).size).toBe(2);
  });

  it('refuses, where it writes it, any value that is not exactly one indicator of its type, naming each', () => {
    const attempt = () =>
      toMispFeed([
        correlation('198.51.100.7\n0.0.0.0/0', 'ipv4'),
        correlation('evil.example.com\u0000', 'domain'),
        correlation('10.0.0.0/8', 'ipv4'),
        correlation('evil.example.com', 'ipv4'),
        correlation('x', 'registry-key'),
        alert({ indicators: [{ type: 'url', value: 'http://a.example.com/\u2028x', confidence: 0.5 }] }),
        alert({ severity: 'dire', timestamp: 'yesterday', title: ' ' }),
        { indicator: 7 } as never,
        correlation('198.51.100.7', 'ipv4', { confidence: 101, verdict: 'bad', riskScore: 0, startedAt: 'never' }),
        correlation('198.51.100.8', 'ipv4', { confidence: 0.9 }),
      ]);
    expect(attempt).toThrow(ValidationError);
    const issues = (() => {
      try {
        attempt();
      } catch (error) {
        return (error as ValidationError).issues;
      }
      return [];
    })();
    expect(issues).toEqual([
      {
        path: '[0].indicator',
        message:
          'Invalid indicator "198.51.100.7\\n0.0.0.0/0": contains whitespace (U+000A); an indicator is a single token',
      },
      {
        path: '[1].indicator',
        message: 'Invalid indicator "evil.example.com\\u0000": contains the control character U+0000',
      },
      { path: '[2].indicator', message: expect.stringMatching(/is a CIDR range/) },
      {
        path: '[3].indicator',
        message: expect.stringMatching(/^Invalid indicator "evil\.example\.com": not a valid ipv4/),
      },
      { path: '[4].type', message: expect.stringMatching(/^unknown indicator type "registry-key" \(expected one of /) },
      {
        path: '[5].indicators[0].value',
        message: expect.stringMatching(/^Invalid indicator "http:\/\/a\.example\.com\/\\u2028x": .*U\+2028/),
      },
      { path: '[5].indicators[0].confidence', message: 'confidence is 0..100; got 0.5 (did you mean 50?)' },
      { path: '[6].title', message: 'expected the alert title' },
      { path: '[6].severity', message: 'expected one of informational, low, medium, high, critical, got "dire"' },
      { path: '[6].timestamp', message: 'is not a date: "yesterday"' },
      { path: '[7]', message: expect.stringMatching(/^expected a correlation/) },
      { path: '[8].confidence', message: 'confidence is 0..100; got 101' },
      { path: '[8].verdict', message: 'expected one of malicious, suspicious, clean, unknown, got "bad"' },
      { path: '[8].riskScore', message: 'expected a number from 1 to 10, got 0' },
      { path: '[8].startedAt', message: 'is not a date: "never"' },
      { path: '[9].confidence', message: 'confidence is 0..100; got 0.9 (did you mean 90?)' },
    ]);
  });

  it.each([
    ['a second line', 'ipv4', '198.51.100.7\n0.0.0.0/0'],
    ['NEL', 'domain', 'evil.example.com\u0085other.example.com'],
    ['LINE SEPARATOR', 'domain', 'evil.example.com\u2028other.example.com'],
    ['DEL', 'domain', 'evil.example.com\u007f'],
    ['a value over 8 KiB', 'domain', `${'a'.repeat(9000)}.example.com`],
    ['an octet inet_aton reads as octal', 'ipv4', '010.1.1.1'],
    ['a URL parsers read different hosts in', 'url', 'http://evil.example.com\\@good.example.com/'],
    ['a CIDR range', 'ipv4', '0.0.0.0/0'],
  ])('refuses %s with the message every other export gives (indicatorForOutput)', (_name, type, value) => {
    const expected = (() => {
      try {
        indicatorForOutput(type, value);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('indicatorForOutput took it');
    })();
    expect(expected).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    for (const item of [correlation(value, type), alert({ indicators: [{ type, value, confidence: 90 }] })]) {
      try {
        toMispFeed([item]);
        expect.unreachable('written');
      } catch (error) {
        expect((error as ValidationError).issues.map((issue) => issue.message)).toEqual([expected]);
      }
    }
  });

  it('escapes every line-breaking character of a value its messages quote', () => {
    try {
      toMispFeed([
        alert({ severity: 'high\u2028x', timestamp: 'now\u0085' }),
        correlation('198.51.100.7', 'ipv4\u2029', { verdict: 'bad\u007f' }),
      ]);
      expect.unreachable('written');
    } catch (error) {
      const messages = (error as ValidationError).issues.map((issue) => issue.message);
      expect(messages).toEqual([
        expect.stringContaining('got "high\\u2028x"'),
        'is not a date: "now\\u0085"',
        expect.stringMatching(/^unknown indicator type "ipv4\\u2029"/),
        expect.stringContaining('got "bad\\u007f"'),
      ]);
      for (const message of messages) expect(message).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    }
  });

  it('still takes the alias types alerts and correlations carry, writing the precise type', () => {
    const feed = toMispFeed([
      correlation('2001:DB8::1', 'ip'),
      alert({ indicators: [{ type: 'hostname', value: 'Evil.Example.com' }] }),
    ]);
    expect(feed.events.flatMap((e) => e.Event.Attribute.map((a) => [a.type, a.value]))).toEqual(
      expect.arrayContaining([
        ['ip-dst', '2001:db8::1'],
        ['domain', 'evil.example.com'],
      ]),
    );
  });

  it('refuses tags and an organisation MISP cannot hold', () => {
    expect(() => toMispFeed([], { tags: ['tlp:amber\nx', '', 'a'.repeat(256)] })).toThrow(
      /options\.tags\[0\]: has a control character; options\.tags\[1\]: expected a tag name; options\.tags\[2\]: is 256 characters long/,
    );
    expect(() => toMispFeed([], { orgc: { name: 'Org\r\n', uuid: 'not-a-uuid' } })).toThrow(
      /options\.orgc\.name: expected a name without control characters; options\.orgc\.uuid: expected a UUID/,
    );
    expect(() => toMispFeed(7 as never)).toThrow(/expected a list of correlations or alerts/);
  });

  it('writes a feed its own reader takes back, attribute for attribute', () => {
    const feed = toMispFeed([correlation('198.51.100.7', 'ip'), alert()]);
    for (const event of feed.events) {
      const file = feed.files.find((f) => f.name === `${event.Event.uuid}.json`);
      const read = readMispEvent(file?.text ?? '', event.Event.uuid, { toIdsOnly: true, match: 'exact' });
      expect('rules' in read && read.rules.map((rule) => rule.entry)).toEqual(
        event.Event.Attribute.filter((a) => a.to_ids).map((a) => a.value),
      );
    }
  });
});

describe('exportMispFeed', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-misp-export-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the files atomically, events first and manifest last, and replaces the previous export', async () => {
    const target = join(dir, 'feed');
    const first = await exportMispFeed([correlation('198.51.100.7', 'ip'), alert()], target, { tags: ['tlp:green'] });
    expect(first).toMatchObject({ directory: target, events: 2, attributes: 2, removed: [] });
    expect(first.files.slice(-2)).toEqual(['hashes.csv', 'manifest.json']);
    expect((await readdir(target)).sort()).toEqual([...first.files].sort());

    // The next export lists only the alert: the correlation's event file goes, once the new manifest is in place.
    const second = await exportMispFeed([alert({ title: 'Phishing wave, day 2' })], target);
    const gone = first.files.filter(
      (name) => name.endsWith('.json') && name !== 'manifest.json' && !second.files.includes(name),
    );
    expect(second.removed).toEqual(gone);
    expect((await readdir(target)).sort()).toEqual([...second.files].sort());
    const manifest = JSON.parse(await readFile(join(target, 'manifest.json'), 'utf8'));
    expect(Object.values(manifest).map((entry) => (entry as { info: string }).info)).toEqual(['Phishing wave, day 2']);

    // Its own reader takes it.
    const list = await loadMispFeedList({ name: 'ours', directory: target, pollInterval: 0 });
    expect(list.lookup(parseIndicator('phish.example.org')).status).toBe('ok');
    await list.close();
  });

  it('writes nothing when any input is refused, and never removes a file the old manifest names by a non-UUID', async () => {
    const target = join(dir, 'refused');
    await mkdir(target);
    await writeFile(join(target, 'manifest.json'), JSON.stringify({ '../outside': { timestamp: 1 } }));
    await writeFile(join(dir, 'outside.json'), 'keep me');
    await expect(exportMispFeed([correlation('not an ip', 'ipv4')], target)).rejects.toThrow(ValidationError);
    expect(await readdir(target)).toEqual(['manifest.json']);
    await exportMispFeed([alert()], target);
    expect(await readFile(join(dir, 'outside.json'), 'utf8')).toBe('keep me');
    expect((await readdir(target)).some((name) => name.endsWith('.tmp'))).toBe(false);
  });
});
