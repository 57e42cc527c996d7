// The checks of every-option.test.ts for `lists`: local files, TAXII collections and MISP feeds.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../scheduler/clock.js';
import { HttpRecorder, IP, until } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect, elsewhere } from './check.test-suite.js';
import { h, listFile, START } from './world.test-suite.js';

/** `lists[].taxii.*`: each observed against a TAXII collection by the TAXII list source's tests. */
function taxiiOptionChecks(): Record<string, Check> {
  const file = 'packages/core/src/lists/taxii/taxii-list-source.test.ts';
  const at = (option: string, ...mentions: string[]) => [`lists[].taxii.${option}`, elsewhere(file, ...mentions)];
  return Object.fromEntries([
    at('url', 'polls the collection at url and collection', 'url: dated.url'),
    at('collection', 'collection: dated.collection'),
    at('auth[type=bearer].type', "auth: { type: 'bearer', token: 's3cret-taxii-token' }"),
    at('auth[type=bearer].token', "auth: { type: 'bearer', token: 's3cret-taxii-token' }"),
    at('auth[type=basic].type', "auth: { type: 'basic', username: 'reader', password: 'pa55word' }"),
    at('auth[type=basic].username', "auth: { type: 'basic', username: 'reader', password: 'pa55word' }"),
    at('auth[type=basic].password', "auth: { type: 'basic', username: 'reader', password: 'pa55word' }"),
    at('pollInterval', 'pollInterval: 60_000', 'clock.advance(59_999)'),
    at('timeout', 'timeout: 100', 'timed out after 100 ms'),
    at('pageSize', 'pageSize: 2', "['2', 'p2']"),
    at('stateFile', 'client({ stateFile })', 'stateStore: stateFile'),
  ]);
}

/** The list's answer about `IP` (its feed id, status and verdict), and how much it weighed. */
async function listAnswer(config: ThreatConfig, indicator = IP) {
  const { client } = h.client(config, { clock: new ManualClock(START) });
  const c = await client.correlate(indicator);
  return c.results
    .filter((r) => r.feed.startsWith('list:'))
    .map((r) => ({
      feed: r.feed,
      verdict: r.verdict,
      weight: c.contributions.find((x) => x.feed === r.feed)?.weight,
    }));
}

const LIST_WITH_IP = listFile('with-ip.txt', `${IP}\n`);
const LIST_WITHOUT_IP = listFile('without-ip.txt', '203.0.113.251\n');
const CSV_IP_FIRST = listFile('ip-first.csv', `indicator,comment\n${IP},seen in a campaign\n`);
const CSV_IP_SECOND = listFile('ip-second.csv', `comment,indicator\nseen in a campaign,${IP}\n`);
const LIST_WITH_DOMAIN = listFile('with-domain.txt', 'listed.example.org\n');

// MISP feeds (lists[].misp): directories of manifest.json and <uuid>.json files, also served over HTTP by `feeds`.
interface FeedAttribute {
  type: string;
  value: string;
  to_ids?: boolean;
  comment?: string;
}

/** Writes a MISP feed of `events` (oldest first, by timestamp) into a directory of the harness. */
function mispFeed(name: string, events: { attributes: FeedAttribute[]; info?: string }[]): string {
  const dir = h.path(name);
  mkdirSync(dir);
  const manifest: Record<string, unknown> = {};
  events.forEach((event, i) => {
    const uuid = `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
    const info = event.info ?? `event ${i + 1}`;
    manifest[uuid] = { info, timestamp: 1_700_000_000 + i, Orgc: { name: 'CIRCL', uuid } };
    writeFileSync(join(dir, `${uuid}.json`), JSON.stringify({ Event: { uuid, info, Attribute: event.attributes } }));
  });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

const FEED_WITH_IP = mispFeed('feed-with-ip', [{ attributes: [{ type: 'ip-dst', value: IP, to_ids: true }] }]);
const FEED_WITHOUT_IP = mispFeed('feed-without-ip', [
  { attributes: [{ type: 'ip-dst', value: '203.0.113.251', to_ids: true }] },
]);
const FEED_IP_NOT_FOR_IDS = mispFeed('feed-ip-context', [
  { attributes: [{ type: 'ip-dst', value: IP, to_ids: false }] },
]);
// The address is in the older of two events: the newer is kept first by maxEvents and maxEntries.
const FEED_IP_IN_OLDER_EVENT = mispFeed('feed-ip-older', [
  { attributes: [{ type: 'ip-dst', value: IP, to_ids: true }] },
  { attributes: [{ type: 'domain', value: 'newer.example.org', to_ids: true }] },
]);
// An event file and a manifest of over 1 KiB.
const FEED_IP_IN_BIG_EVENT = mispFeed('feed-ip-big', [
  { info: 'x'.repeat(2000), attributes: [{ type: 'ip-dst', value: IP, to_ids: true, comment: 'y'.repeat(2000) }] },
]);

/** Serves the harness's feed directories at `/<directory name>/<file>`; `/slow/…` answers after 400 ms. */
export const feeds = new HttpRecorder();
feeds.respond = (request) => {
  const [, dir = '', file = ''] = request.url.split('/');
  const slow = dir === 'slow';
  const path = join(slow ? FEED_WITH_IP : join(h.dir, dir), file);
  if (dir.includes('..') || file.includes('..') || !existsSync(path)) return { status: 404 };
  return { status: 200, body: readFileSync(path, 'utf8'), ...(slow ? { delayMs: 400 } : {}) };
};
const feedUrl = (dir: string) => `${feeds.url}/${dir.slice(h.dir.length + 1)}`;

/** `lists` holding one MISP feed list, read once unless `misp` says otherwise. */
const mispList = (misp: object) => ({ lists: [{ name: 'feed', misp: { pollInterval: 0, ...misp } }] });

/** The list's answer about `IP`, or the code of the error loading the list failed with. */
const feedAnswer = (config: ThreatConfig) =>
  listAnswer(config).catch((error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);

/** How many times the client read the feed's manifest within a minute of its start. */
async function manifestReadsInAMinute(config: ThreatConfig): Promise<number> {
  const clock = new ManualClock(START);
  const { client } = h.client(config, { clock });
  const reads = () => feeds.requests.filter((r) => r.url.endsWith('/manifest.json') && r.headers['x-probe'] === 'poll');
  const before = reads().length;
  await client.listStatus();
  await clock.advance(60_000);
  await until(() => reads().length > before + 1, 500).catch(() => undefined);
  await client.stop();
  return reads().length - before;
}

/** One check per option of `lists`. */
export const LIST_CHECKS: Record<string, Check> = {
  'lists[].name': effect({ lists: [{ name: 'renamed', file: LIST_WITH_IP }] }, listAnswer, {
    lists: [{ name: 'base', file: LIST_WITH_IP }],
  }),
  'lists[].file': effect({ lists: [{ name: 'base', file: LIST_WITH_IP }] }, listAnswer, {
    lists: [{ name: 'base', file: LIST_WITHOUT_IP }],
  }),
  'lists[].format': effect({ lists: [{ name: 'base', file: CSV_IP_FIRST, format: 'csv' }] }, listAnswer, {
    lists: [{ name: 'base', file: CSV_IP_FIRST }],
  }),
  'lists[].verdict': effect({ lists: [{ name: 'base', file: LIST_WITH_IP, verdict: 'suspicious' }] }, listAnswer, {
    lists: [{ name: 'base', file: LIST_WITH_IP }],
  }),
  'lists[].column': effect({ lists: [{ name: 'base', file: CSV_IP_SECOND, format: 'csv', column: 1 }] }, listAnswer, {
    lists: [{ name: 'base', file: CSV_IP_SECOND, format: 'csv' }],
  }),
  'lists[].weight': effect({ lists: [{ name: 'base', file: LIST_WITH_IP, weight: 0.2 }] }, listAnswer, {
    lists: [{ name: 'base', file: LIST_WITH_IP }],
  }),

  'lists[].match': effect(
    { lists: [{ name: 'base', file: LIST_WITH_DOMAIN, match: 'exact' }] },
    (c) => listAnswer(c, 'https://listed.example.org/payload'),
    { lists: [{ name: 'base', file: LIST_WITH_DOMAIN }] },
  ),
  // A TAXII list polls a TAXII server: each option is observed against one in the list source's own tests.
  ...taxiiOptionChecks(),

  'lists[].misp.directory': effect(
    mispList({ directory: FEED_WITH_IP }),
    feedAnswer,
    mispList({ directory: FEED_WITHOUT_IP }),
  ),
  'lists[].misp.url': effect(
    () => mispList({ url: feedUrl(FEED_WITH_IP) }),
    feedAnswer,
    () => mispList({ url: feedUrl(FEED_WITHOUT_IP) }),
  ),
  'lists[].misp.headers': effect(
    () => mispList({ url: feedUrl(FEED_WITH_IP), headers: { Authorization: 'feed-key' } }),
    async (c) => {
      const before = feeds.requests.length;
      await feedAnswer(c);
      return feeds.requests.slice(before).map((r) => r.headers.authorization ?? null);
    },
    () => mispList({ url: feedUrl(FEED_WITH_IP) }),
  ),
  'lists[].misp.pollInterval': effect(
    () => ({
      lists: [
        { name: 'feed', misp: { url: feedUrl(FEED_WITH_IP), headers: { 'x-probe': 'poll' }, pollInterval: 60_000 } },
      ],
    }),
    manifestReadsInAMinute,
    () => ({ lists: [{ name: 'feed', misp: { url: feedUrl(FEED_WITH_IP), headers: { 'x-probe': 'poll' } } }] }),
  ),
  'lists[].misp.timeout': effect(
    () => mispList({ url: `${feeds.url}/slow`, timeout: 50 }),
    feedAnswer,
    () => mispList({ url: `${feeds.url}/slow` }),
  ),
  'lists[].misp.toIdsOnly': effect(
    mispList({ directory: FEED_IP_NOT_FOR_IDS, toIdsOnly: false }),
    feedAnswer,
    mispList({ directory: FEED_IP_NOT_FOR_IDS }),
  ),
  'lists[].misp.maxEvents': effect(
    mispList({ directory: FEED_IP_IN_OLDER_EVENT, maxEvents: 1 }),
    feedAnswer,
    mispList({ directory: FEED_IP_IN_OLDER_EVENT }),
  ),
  'lists[].misp.maxEventBytes': effect(
    mispList({ directory: FEED_IP_IN_BIG_EVENT, maxEventBytes: 1024 }),
    feedAnswer,
    mispList({ directory: FEED_IP_IN_BIG_EVENT }),
  ),
  'lists[].misp.maxManifestBytes': effect(
    mispList({ directory: FEED_IP_IN_BIG_EVENT, maxManifestBytes: 1024 }),
    feedAnswer,
    mispList({ directory: FEED_IP_IN_BIG_EVENT }),
  ),
  'lists[].misp.maxEntries': effect(
    mispList({ directory: FEED_IP_IN_OLDER_EVENT, maxEntries: 1 }),
    feedAnswer,
    mispList({ directory: FEED_IP_IN_OLDER_EVENT }),
  ),
};
