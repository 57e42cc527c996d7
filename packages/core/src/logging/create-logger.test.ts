import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse-config.js';
import type { ThreatConfig } from '../config/schema.js';
import { withCategory } from './categories.js';
import { closeLogger, createLogger, logTransportStats } from './create-logger.js';

type LoggingInput = NonNullable<ThreatConfig['logging']>;

function capture(logging: LoggingInput = {}) {
  const lines: string[] = [];
  const logger = createLogger(parseConfig({ sources: ['feed_urls'], logging }).logging, {
    destination: { write: (line: string) => lines.push(line) },
  });
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, records };
}

describe('createLogger', () => {
  it('is a pino logger writing one JSON line per call, at or above the level', () => {
    const { logger, records, lines } = capture({ level: 'info' });
    logger.debug({ n: 1 }, 'hidden');
    logger.info({ n: 2 }, 'shown');
    expect(typeof logger.child).toBe('function');
    expect(records()).toEqual([expect.objectContaining({ level: 30, n: 2, msg: 'shown', name: 'threatlib' })]);
    expect(lines[0]?.endsWith('\n')).toBe(true);
  });

  it('puts a subsystem category on each line, once, even through a child of a child', () => {
    const { logger, lines, records } = capture();
    const feeds = withCategory(logger, 'feed');
    feeds.warn({ feed: 'feed_otx' }, 'slow');
    withCategory(feeds, 'cache').warn({}, 'cache write failed');
    feeds.child?.({ request: 7 }).info({}, 'inner');
    feeds.warn({ category: 'scheduler' }, 'overridden');
    expect(records().map((r) => r.category)).toEqual(['feed', 'cache', 'feed', 'scheduler']);
    for (const line of lines) expect(line.match(/"category"/g)).toHaveLength(1);
  });

  it('gives an error logged alone its category, message and stack', () => {
    const { logger, records } = capture();
    withCategory(logger, 'vault').error(new Error('disk full') as unknown as object);
    expect(records()[0]).toMatchObject({
      category: 'vault',
      msg: 'disk full',
      err: { type: 'Error', message: 'disk full' },
    });
  });

  it('writes format "text" as one line for people', () => {
    const { logger, lines } = capture({ format: 'text' });
    withCategory(logger, 'feed').warn(
      { feed: 'feed_otx', status: 'timeout', detail: { tries: 3 }, note: 'two words' },
      'feed_otx failed:\ntimeout',
    );
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN {2}\[feed\] feed_otx failed:\\ntimeout feed=feed_otx status=timeout detail=\{"tries":3\} note="two words"\n$/,
    );
  });

  // A line reader may end a record at any of these: NUL, VT, FF, CR, LF, NEL, U+2028, U+2029 (and DEL, C1).
  const BREAKERS = ['\u0000', '\u000b', '\u000c', '\r', '\n', '\u0085', '\u2028', '\u2029', '\u007f', '\u009b'];

  it.each(['json', 'text', 'structured'] as const)(
    'writes format "%s" as one line per record whatever control or separator characters it holds',
    (format) => {
      const { logger, lines } = capture({ format });
      for (const c of BREAKERS) {
        withCategory(logger, 'feed').warn({ [`key${c}x`]: `value${c}x`, nested: { deep: `a${c}b` } }, `message${c}x`);
      }
      expect(lines).toHaveLength(BREAKERS.length);
      for (const line of lines) {
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
      }
      if (format !== 'text') {
        // The same values, escaped in JSON.
        const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        BREAKERS.forEach((c, i) => {
          expect(records[i]).toMatchObject({ [`key${c}x`]: `value${c}x`, nested: { deep: `a${c}b` } });
        });
      } else {
        expect(lines[0]).toContain('message\\u0000x key\\u0000x="value\\u0000x" nested={"deep":"a\\u0000b"}');
        expect(lines[6]).toContain('message\\u2028x key\\u2028x="value\\u2028x" nested={"deep":"a\\u2028b"}');
      }
    },
  );

  it('writes format "structured" with Elastic Common Schema field names', () => {
    const { logger, records } = capture({ format: 'structured' });
    withCategory(logger, 'feed').error({ feed: 'feed_otx', err: new TypeError('boom') }, 'feed failed');
    expect(records()[0]).toMatchObject({
      '@timestamp': expect.stringMatching(/^\d{4}-/),
      'log.level': 'error',
      message: 'feed failed',
      'ecs.version': expect.any(String),
      'service.name': 'threatlib',
      'event.dataset': 'threatlib.feed',
      category: 'feed',
      feed: 'feed_otx',
      error: { type: 'TypeError', message: 'boom', stack_trace: expect.stringContaining('TypeError: boom') },
    });
  });

  it('drops lines of excluded feeds, by id or short name', () => {
    const { logger, records } = capture({ filters: { excludeFeeds: ['otx', 'feed_scan'] } });
    const feeds = withCategory(logger, 'feed');
    feeds.warn({ feed: 'feed_otx' }, 'a');
    feeds.warn({ feed: 'feed_scan' }, 'b');
    feeds.warn({ feed: 'feed_abuse' }, 'c');
    logger.child({ feed: 'feed_otx' }).warn({}, 'd');
    logger.info({}, 'e');
    expect(records().map((r) => r.msg)).toEqual(['c', 'e']);
  });

  it('keeps only the categories of includeOnly', () => {
    const { logger, records } = capture({ filters: { includeOnly: ['vault', 'audit'] } });
    withCategory(logger, 'vault').warn({}, 'a');
    withCategory(logger, 'feed').warn({}, 'b');
    logger.info({ category: 'audit' }, 'c');
    logger.info({}, 'uncategorised');
    expect(records().map((r) => r.msg)).toEqual(['a', 'c']);
  });

  it('refuses an unknown category in includeOnly, naming the valid ones', () => {
    expect(() =>
      parseConfig({ sources: ['feed_urls'], logging: { filters: { includeOnly: ['feeds'] as never } } }),
    ).toThrow(
      /logging\.filters\.includeOnly\[0\]: expected a log category: one of client, config, feed, cache, scheduler, lists, vault, audit, events, integration, server/,
    );
  });

  it('removes secrets from fields, bindings, errors, messages and interpolated values', () => {
    const { logger, lines } = capture({ level: 'debug' });
    const secrets = ['k-field', 'k-bound', 'k-err', 'k-url', 'k-msg', 'k-arg', 'k-header', 'pw-1', 'tok-1'];
    const child = logger.child({ apiKey: 'k-bound' });
    child.info({ config: { apiKeys: { feed_otx: 'k-field' } }, vault: { password: 'pw-1' } }, 'configured');
    child.warn(
      { err: Object.assign(new Error('refused'), { request: { headers: { 'X-OTX-API-KEY': 'k-err' } } }) },
      'request failed',
    );
    child.error({ url: 'https://otx.example/api?apikey=k-url' }, 'GET failed with Authorization: Bearer k-msg');
    child.debug('retrying with %s', 'token=k-arg');
    child.info({ headers: [{ name: 'authorization', value: 'x' }], auth: { authorization: 'k-header' } }, 'sent');
    child.info({ session: { refresh_token: 'tok-1' } }, 'session');
    expect(lines).toHaveLength(6);
    for (const line of lines) for (const secret of secrets) expect(line).not.toContain(secret);
    expect(lines.join('')).toContain('[redacted]');
  });

  it('redacts every line of a logger whose bindings hold a secret, however clean the call', () => {
    const { logger, lines } = capture();
    const child = logger.child({ session: { token: 'tok-bound' } });
    child.info({ n: 1 }, 'clean call');
    child.child({ request: 2 }).info({ n: 2 }, 'clean call of a grandchild');
    const other = logger.child({ user: 'u' });
    other.setBindings({ password: 'pw-set' });
    other.info({ n: 3 }, 'after setBindings');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain('tok-bound');
      expect(line).not.toContain('pw-set');
    }
  });

  it('is a silent pino logger when logging is disabled', async () => {
    const { logger, lines } = capture({ enabled: false });
    logger.error({}, 'nothing');
    expect(typeof logger.child({}).info).toBe('function');
    expect(lines).toEqual([]);
    expect(logTransportStats(logger)).toEqual({});
    await closeLogger(logger);
  });

  it('counts what each destination wrote', () => {
    const { logger } = capture();
    logger.info({}, 'one');
    logger.info({}, 'two');
    expect(logTransportStats(logger)).toEqual({ destination: { written: 2 } });
  });

  it('writes to every transport of the documented array, several of one type, each by its own level', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'threatlib-two-files-'));
    try {
      const [all, errors] = [join(dir, 'all.log'), join(dir, 'errors.log')];
      const logger = createLogger(
        parseConfig({
          sources: ['feed_urls'],
          logging: {
            stderr: false,
            transports: [
              { type: 'file', filename: all },
              {
                type: 'file',
                filename: errors,
                level: 'error',
                filter: (line: Record<string, unknown>) => line.keep === true,
              },
            ],
          },
        }).logging,
      );
      logger.info({ n: 1 }, 'info');
      logger.error({ n: 2, keep: true }, 'kept error');
      logger.error({ n: 3 }, 'filtered error');
      await closeLogger(logger);
      const ns = async (file: string) =>
        (await readFile(file, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { n: number }).n);
      expect(await ns(all)).toEqual([1, 2, 3]);
      expect(await ns(errors)).toEqual([2]);
      expect(logTransportStats(logger)).toMatchObject({ file: { written: 3 }, 'file#2': { written: 1 } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
