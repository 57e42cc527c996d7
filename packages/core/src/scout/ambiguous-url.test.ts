import { afterAll, describe, expect, it } from 'vitest';
import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import { quickStartClient } from './quick-start-client.test-suite.js';
import { streamScouts } from './scout-many.js';

// Issue 12, finding 1: WHATWG URL parsers read `\` as `/`, so these URLs' host is the special-use address before
// it; RFC 3986 parsers (curl, Python's urlsplit, proxies, SIEM parsers) read that address as user info and
// `evil.com` as the host. The built-in special-use warninglist answered them `clean` without asking anything.
const BACKSLASH_BEFORE_AT = [
  'http://127.0.0.1\\@evil.com/',
  'ftp://10.0.0.1\\@evil.com/payload',
  'http://169.254.169.254\\@evil.com/x',
  'https://192.168.1.1\\@evil.com:8443/a',
  'http://[::1]\\@evil.com/',
  'http://[::ffff:127.0.0.1]\\@evil.com/',
  'hxxp://127[.]0[.]0[.]1\\@evil[.]com/',
];

// Other authorities whose host depends on the parser: more than one `@` (RFC 3986 forbids `@` in user info, so
// parsers split at the first or at the last), a delimiter percent-encoded in the user info (a parser that decodes
// before splitting finds another host), an IPv4 host with a trailing dot (a name to some, an address to others).
const OTHER_AMBIGUOUS: ReadonlyArray<readonly [string, RegExp]> = [
  ['http://evil.com@x@127.0.0.1/', /more than one "@"/],
  ['http://evil.com%2F@127.0.0.1/', /percent-encoded "\/" in the user info/],
  ['http://evil.com%40@10.0.0.1/', /percent-encoded "@" in the user info/],
  ['http://evil.com%5c@10.0.0.1/', /percent-encoded "\\" in the user info/],
  ['http://127.0.0.1./', /trailing dot/],
  ['ftp://127.0.0.1%2E/', /trailing dot/],
];

const client = quickStartClient();
afterAll(() => client.stop());

async function refusal(run: () => Promise<unknown>): Promise<InvalidIndicatorError> {
  const error = await run().then(
    (value) => value,
    (thrown: unknown) => thrown,
  );
  if (!InvalidIndicatorError.isInstance(error)) {
    throw new Error(`expected an InvalidIndicatorError, got ${JSON.stringify(error)}`);
  }
  return error;
}

describe('a URL whose host depends on the parser', () => {
  it.each(BACKSLASH_BEFORE_AT)('correlate refuses %j, naming the backslash', async (url) => {
    const error = await refusal(() => client.correlate(url));
    expect(error.reason).toMatch(/backslash/);
    expect(error.reason).toMatch(/ambiguous/);
    expect(error.input).toBe(url);
  });

  it.each(BACKSLASH_BEFORE_AT)('scout refuses %j', async (url) => {
    const error = await refusal(() => client.scout(url));
    expect(error.reason).toMatch(/backslash/);
  });

  it.each(OTHER_AMBIGUOUS)('correlate refuses %j, saying why', async (url, reason) => {
    const error = await refusal(() => client.correlate(url));
    expect(error.reason).toMatch(reason);
  });

  it('scoutMany refuses each of them and goes on with the rest', async () => {
    const inputs = [...BACKSLASH_BEFORE_AT, ...OTHER_AMBIGUOUS.map(([url]) => url), '10.1.2.3'];
    const items = [];
    for await (const item of client.scoutMany(inputs)) items.push(item);
    const byInput = new Map(items.map((item) => [item.input, item]));
    for (const url of inputs.slice(0, -1)) {
      const item = byInput.get(url);
      expect(item, url).toMatchObject({ ok: false, error: { code: 'INVALID_INDICATOR' } });
    }
    expect(byInput.get('10.1.2.3')).toMatchObject({ ok: true, result: { warninglist: { entry: '10.0.0.0/8' } } });
  });

  it('the batch path the CLI and the REST batch route use (streamScouts over correlate) refuses them too', async () => {
    const items = [];
    for await (const item of streamScouts(BACKSLASH_BEFORE_AT, (input) => client.correlate(input), { window: 4 })) {
      items.push(item);
    }
    expect(items).toHaveLength(BACKSLASH_BEFORE_AT.length);
    for (const item of items) {
      expect(item).toMatchObject({ ok: false, error: { code: 'INVALID_INDICATOR' } });
      expect(item.ok ? '' : item.error.message).toMatch(/backslash/);
    }
  });
});

describe('URLs every parser reads alike are still answered', () => {
  it.each([
    ['http://127.0.0.1/', '127.0.0.0/8'],
    // User info before a single `@`: WHATWG and RFC 3986 both take the host after it.
    ['http://evil.com@127.0.0.1/x', '127.0.0.0/8'],
    ['http://[::ffff:10.0.0.1]/', '10.0.0.0/8'],
    // A backslash after the authority is in the path for every parser.
    ['http://192.168.1.1/a\\@evil.com', '192.168.0.0/16'],
  ])('%j is clean from the special-use warninglist (%s)', async (url, entry) => {
    const result = await client.correlate(url);
    expect(result.verdict).toBe('clean');
    expect(result.warninglist?.entry).toBe(entry);
  });

  it('a URL whose user info is a special-use address is not cleared by it', async () => {
    const result = await client.correlate('http://127.0.0.1@evil.com/');
    expect(result.warninglist).toBeUndefined();
    expect(result.verdict).not.toBe('clean');
  });
});
