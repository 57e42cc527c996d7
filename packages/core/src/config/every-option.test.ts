// Every option the configuration schema accepts either changes what the client does, or is refused as "not
// supported yet". The list of options is read from the schema itself: an option added without a check here fails
// the first test. Each check observes the client (or the piece the client drives) twice, with the option at its
// default and at another value, and requires the two observations to differ.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as z from 'zod';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from '../cache/redis-e2e.test-suite.js';
import { ThreatClient } from '../client/threat-client.js';
import { withCategory } from '../logging/categories.js';
import { closeLogger, createLogger, logTransportStats } from '../logging/create-logger.js';
import { silentLogger } from '../logging/logger.js';
import { createClientMetrics } from '../metrics/client-metrics.js';
import { ManualClock } from '../scheduler/clock.js';
import {
  answer,
  configWith,
  deadPort,
  failed,
  Harness,
  HttpRecorder,
  IP,
  type ProbeFeed,
  RespRecorder,
  SelfSignedServer,
  SilentServer,
  SmtpRecorder,
  SyslogReceivers,
  sleep,
  until,
} from './option-checks.test-suite.js';
import { parseConfig } from './parse-config.js';
import { LogTransportsSchema, type ThreatConfig, ThreatConfigSchema } from './schema.js';

// ---------------------------------------------------------------------------------------------------------------
// The options, read from the schema.

/**
 * Every option path of `schema`: `performance.rateLimit.perFeed.*.requestsPerDay` (`*` for a record's keys),
 * `lists[].weight` (an array of objects), `logging.transports[type=file].maxSize` (a tagged union's member),
 * `apiKeys.*` for the scalar form of an option that also takes an object.
 */
function optionPaths(schema: z.core.$ZodType, path = ''): string[] {
  // Core checks the type of each integration's options only; their packages own the rest (and its tests).
  if (path === 'integrations') return [path];
  // Read through a custom transform: its documented form is the array.
  if (path === 'logging.transports' && kindOf(schema) === 'pipe') return optionPaths(LogTransportsSchema, path);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const inner = (key: string) => def[key] as z.core.$ZodType;
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return optionPaths(inner('innerType'), path);
    case 'pipe':
      return optionPaths(inner('in'), path);
    case 'object':
      return Object.entries(def.shape as Record<string, z.core.$ZodType>).flatMap(([key, value]) =>
        optionPaths(value, path ? `${path}.${key}` : key),
      );
    case 'array': {
      const element = inner('element');
      if (!holdsOptions(element)) return [path];
      return optionPaths(element, isTaggedUnion(element) ? path : `${path}[]`);
    }
    case 'record':
      return holdsOptions(inner('valueType')) ? optionPaths(inner('valueType'), `${path}.*`) : [path];
    case 'union': {
      const options = def.options as z.core.$ZodType[];
      const objects = options.filter((o) => kindOf(o) === 'object');
      if (objects.length === 0) return [path];
      const discriminator = def.discriminator as string | undefined;
      if (discriminator) {
        return objects.flatMap((o) => {
          const shape = (unwrap(o)._zod.def as unknown as { shape: Record<string, z.core.$ZodType> }).shape;
          const tag = (shape[discriminator]?._zod.def as unknown as { values?: unknown[] } | undefined)?.values?.[0];
          return optionPaths(o, `${path}[${discriminator}=${String(tag)}]`);
        });
      }
      return [...(objects.length < options.length ? [path] : []), ...objects.flatMap((o) => optionPaths(o, path))];
    }
    default:
      return [path];
  }
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as unknown as { type: string; innerType?: z.core.$ZodType };
  return ['optional', 'default', 'prefault', 'nullable'].includes(def.type) && def.innerType
    ? unwrap(def.innerType)
    : schema;
}

const kindOf = (schema: z.core.$ZodType) => unwrap(schema)._zod.def.type;
const holdsOptions = (schema: z.core.$ZodType) => ['object', 'union', 'record'].includes(kindOf(schema));
const isTaggedUnion = (schema: z.core.$ZodType) =>
  kindOf(schema) === 'union' && (unwrap(schema)._zod.def as unknown as { discriminator?: string }).discriminator;

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

// ---------------------------------------------------------------------------------------------------------------
// What a check is.

/** A configuration fragment, or a function making it once the local servers listen (their URLs are known then). */
type Fragment = object | (() => object);
const resolve = (fragment: Fragment): object => (typeof fragment === 'function' ? fragment() : fragment);

/** Observed with `without`, then with `with` laid over it: the two observations must differ. */
interface Effect {
  kind: 'effect';
  without: Fragment;
  with: Fragment;
  observe: (config: ThreatConfig) => Promise<unknown>;
  /** A server the check needs (the e2e Redis). */
  needs?: 'redis';
}

/** The option has one value: anything else is refused by the schema. */
interface OnlyValue {
  kind: 'only';
  with: Fragment;
}

/** The option takes effect in another package, whose test shows it; that test file must name it. */
interface Elsewhere {
  kind: 'elsewhere';
  file: string;
  mentions: string[];
}

type Check = Effect | OnlyValue | Elsewhere;

const effect = (
  change: Fragment,
  observe: Effect['observe'],
  without: Fragment = {},
  needs?: Effect['needs'],
): Effect => ({
  kind: 'effect',
  with: change,
  without,
  observe,
  ...(needs ? { needs } : {}),
});
const elsewhere = (file: string, ...mentions: string[]): Elsewhere => ({ kind: 'elsewhere', file, mentions });

// ---------------------------------------------------------------------------------------------------------------
// The world the checks observe.

const h = new Harness();
const IP2 = '198.51.100.24';
const IP3 = '198.51.100.25';
const PRIVATE_IP = '10.1.2.3';
const START = Date.parse('2026-06-01T00:00:00Z');

const BASE_LIST = h.path('base-list.txt');
writeFileSync(BASE_LIST, '203.0.113.250\n');

/** Under every check: no feed but the probes (and a list, since some source is required), no HTTPS rule. */
const BASE: ThreatConfig = {
  sources: [],
  lists: [{ name: 'base', file: BASE_LIST }],
  security: { enforceHttps: false },
  performance: { retryAttempts: 0 },
  caching: { enabled: false },
};

const hook = new HttpRecorder();
const tokens = new HttpRecorder();
const tls = new SelfSignedServer();
const syslog = new SyslogReceivers();
const smtp = new SmtpRecorder();
const resp = new RespRecorder();
/** Accepts connections and never answers: a Redis that hangs. */
const silent = new SilentServer();
let dead: number;

beforeAll(async () => {
  await Promise.all([
    hook.start(),
    tokens.start(),
    tls.start(),
    syslog.start(),
    smtp.start(),
    resp.start(),
    feeds.start(),
    silent.start(),
  ]);
  dead = await deadPort();
  tokens.respond = () => ({
    status: 200,
    body: JSON.stringify({ access_token: 'probe-token', token_type: 'Bearer', expires_in: 300 }),
  });
});

afterAll(async () => {
  await h.close();
  await Promise.all([
    hook.close(),
    tokens.close(),
    tls.close(),
    syslog.close(),
    smtp.close(),
    resp.close(),
    feeds.close(),
    silent.close(),
  ]);
});

/** Lets the client's pending promise callbacks and I/O run. */
async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The requests that reached the `hook` recorder (standing for a CORS proxy) during one scout of `indicator`. */
async function proxied(config: ThreatConfig, indicator: string) {
  const before = hook.requests.length;
  await h.client(config).client.scout(indicator);
  return hook.requests.slice(before);
}

/** What a page's `localStorage` holds after one scout of `IP` (a stand-in over a Map, as Node.js has none). */
async function pageStorage(config: ThreatConfig): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  vi.stubGlobal('localStorage', {
    get length() {
      return map.size;
    },
    key: (index: number) => [...map.keys()][index] ?? null,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, String(value)),
    removeItem: (key: string) => void map.delete(key),
  });
  try {
    const { client } = h.client(configWith(config, { caching: { enabled: true } }));
    await client.scout(IP);
    await client.stop();
    return map;
  } finally {
    vi.unstubAllGlobals();
  }
}

/** What the probes were asked, after one scout of `indicator`. */
async function probeCalls(config: ThreatConfig, indicator = IP) {
  const { client, probe } = h.client(config);
  await client.scout(indicator);
  return probe.calls;
}

/** The status each source answered `indicator` with. */
async function statuses(config: ThreatConfig, setup: (probe: ProbeFeed) => void = () => {}, indicator = IP) {
  const { client, probe } = h.client(config);
  setup(probe);
  const result = await client.scout(indicator);
  return Object.fromEntries(result.results.map((r) => [r.feed, r.status]));
}

/** What correlating `IP` concludes, both probes answering `verdict` with `score`. */
async function verdict(config: ThreatConfig, score = 0.8, extra: Parameters<typeof answer>[2] = {}) {
  const { client, probes } = h.client(config, { clock: new ManualClock(START) });
  for (const probe of probes) probe.answer = () => answer('malicious', score, extra);
  const c = await client.correlate(IP);
  return {
    isThreat: c.isThreat,
    riskScore: c.riskScore,
    confidence: c.confidence,
    contributions: c.contributions.map((x) => ({ feed: x.feed, weight: x.weight, recency: x.recency })),
  };
}

/** The quota `feedStatus` reports for `feed`. */
function limits(config: ThreatConfig, feed = 'feed_probe') {
  return h
    .client(config)
    .client.feedStatus()
    .find((s) => s.feed === feed)?.limits;
}

/** A probe that answers after `ms` of real time unless its request is aborted first (by a timeout). */
function slowProbe(ms: number) {
  return (probe: ProbeFeed) => {
    probe.answer = (context) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(answer('malicious')), ms);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        });
      });
  };
}

/** A probe whose every answer fails with `status`. */
const failing = (status: Parameters<typeof failed>[0], error?: Parameters<typeof failed>[1]) => (probe: ProbeFeed) => {
  probe.answer = () => failed(status, error);
};

/** The breaker of `feed_probe` after the scouts `act` makes on a client whose probe always fails with 400. */
async function breaker(
  config: ThreatConfig,
  act: (scout: () => Promise<unknown>, clock: ManualClock) => Promise<void>,
) {
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('error', { message: 'bad request', statusCode: 400 })(probe);
  await act(() => client.scout(IP), clock);
  const status = client.feedStatus().find((s) => s.feed === 'feed_probe')?.breaker;
  return {
    state: status?.state,
    resetMs:
      status?.nextTrialAt && status.openedAt ? Date.parse(status.nextTrialAt) - Date.parse(status.openedAt) : null,
  };
}

/** How many times a probe failing with 503 was asked by the time `clock` has moved by each of `steps`. */
async function retriesOver(config: ThreatConfig, steps: number[]) {
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('error', { message: 'unavailable', statusCode: 503 })(probe);
  const scout = client.scout(IP);
  await until(() => probe.calls.length === 1);
  // The retry's wait is set once the failed answer has gone through the pipeline.
  await settle();
  const seen: number[] = [];
  for (const step of steps) {
    await clock.advance(step);
    await settle();
    seen.push(probe.calls.length);
  }
  for (let i = 0; i < 10; i++) await clock.advance(60_000);
  await scout;
  return seen;
}

/** How many times the probe was asked over scouts of `indicators`, the clock moving by `gapMs` before each. */
async function lookupsOver(
  config: ThreatConfig,
  indicators: string[],
  options: { gapMs?: number; setup?: (probe: ProbeFeed) => void; start?: boolean } = {},
) {
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  options.setup?.(probe);
  if (options.start) await client.start();
  for (const indicator of indicators) {
    await clock.advance(options.gapMs ?? 0);
    await client.scout(indicator);
  }
  return probe.calls.length;
}

/** The files in `dir` (none when it does not exist). */
const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** A fresh, empty directory for one observation. */
function freshDir(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A vault client made with `config`, and what `look` sees of it. */
async function vaultSees<T>(
  config: ThreatConfig,
  look: (vault: Awaited<ReturnType<typeof ThreatClient.createVault>>['vault'], clock: ManualClock) => Promise<T> | T,
): Promise<T> {
  const clock = new ManualClock(START);
  // A fast KDF unless the check is about the KDF.
  const fast = configWith({ security: { encryption: { keyDerivation: 'pbkdf2', iterations: 1000 } } }, config);
  const { client, vault } = await ThreatClient.createVault(
    'a vault password',
    { feed_probe: 'probe-key' },
    { config: fast, clientOptions: { env: false, logger: silentLogger, clock } },
  );
  h.adopt(client);
  try {
    return await look(vault, clock);
  } finally {
    vault.lock('manual');
  }
}

/** The vault file's recorded salt and GCM tag lengths, and the ciphertext length. */
function envelopeOf(vault: { toBytes(): Buffer }) {
  const envelope = JSON.parse(vault.toBytes().toString('utf8')) as {
    kdf: { salt: string };
    cipher: { tagLength: number };
    ciphertext: string;
  };
  return {
    saltBytes: Buffer.from(envelope.kdf.salt, 'base64').length,
    tagLength: envelope.cipher.tagLength,
    ciphertextBytes: Buffer.from(envelope.ciphertext, 'base64').length,
  };
}

/** Events seen by the handlers the event checks configure. */
const seen: string[] = [];
const handler = (name: string) => () => {
  seen.push(name);
};

/** The events the handlers saw while `act` ran on a client made with `config`. */
async function eventsSeen(
  config: ThreatConfig,
  act: (client: ThreatClient, probe: ProbeFeed) => Promise<unknown>,
): Promise<string[]> {
  seen.length = 0;
  const { client, probe } = h.client(config, { clock: new ManualClock(START) });
  await act(client, probe);
  await settle();
  return [...seen];
}

/** The lines a logger made from `config.logging` writes for a fixed set of calls. */
async function logLines(config: ThreatConfig) {
  const lines: string[] = [];
  const logger = createLogger(parseConfig(config).logging, { destination: { write: (line) => lines.push(line) } });
  logger.info({ marker: 'info-line' }, 'an info line');
  withCategory(logger, 'feed').warn({ feed: 'feed_otx', marker: 'feed-line' }, 'a feed line');
  withCategory(logger, 'vault').error({ marker: 'vault-line' }, 'a vault line');
  await closeLogger(logger);
  return lines.map((line) => line.trim());
}

/**
 * What a logger made from `config.logging` (stderr off) sends through its transports for three lines (info,
 * a kept error, a warning), closing it in the end; `during` may look before it closes.
 */
async function throughTransports(
  config: ThreatConfig,
  options: { clock?: ManualClock; during?: (logger: unknown) => Promise<void> } = {},
) {
  const logging = parseConfig(configWith(config, { logging: { stderr: false } })).logging;
  const logger = createLogger(logging, options.clock ? { clock: options.clock } : {});
  logger.info({ marker: 'info-line' }, 'an info line');
  logger.error({ marker: 'error-line', keep: true }, 'an error line');
  logger.warn({ marker: 'warn-line' }, 'a warning');
  await options.during?.(logger);
  const closing = closeLogger(logger);
  if (options.clock) {
    // Retry delays and flush intervals run on the clock: move it until the logger has closed.
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    while (!closed) {
      await options.clock.advance(30_000);
      await sleep(2);
    }
  }
  await closing;
  return logTransportStats(logger);
}

/** The first of `config.logging.transports` (the checks configure one). */
function firstTransport(config: ThreatConfig): Record<string, unknown> {
  const transports = config.logging?.transports;
  return (Array.isArray(transports) ? transports[0] : undefined) ?? {};
}

/** File transport checks write under their own directory, emptied before each observation. */
function fileTransport(dir: string, change: Fragment, without: Fragment = {}): Effect {
  return effect(
    change,
    async (config) => {
      freshDir(dir);
      const logging = parseConfig(configWith(config, { logging: { stderr: false } })).logging;
      const logger = createLogger(logging);
      // Enough lines to rotate a 1 KB file many times over.
      for (let i = 0; i < 60; i++) logger.info({ i, keep: i === 7, pad: 'x'.repeat(40) }, `line ${i}`);
      logger.error({ marker: 'error-line' }, 'an error line');
      await closeLogger(logger);
      const files = filesIn(dir);
      const live = files.find((f) => f.endsWith('.log'));
      const text = live ? readFileSync(join(dir, live), 'utf8') : '';
      return { files, lines: text.split('\n').filter(Boolean).length, hasInfo: text.includes('"line 0"') };
    },
    without,
  );
}

/** Webhook transport checks: the requests the recorder got, and the transport's counters. */
function webhookTransport(change: Fragment, without: Fragment, observe?: Effect['observe']): Effect {
  return effect(
    change,
    observe ??
      (async (config) => {
        hook.requests.length = 0;
        const stats = await throughTransports(config, { clock: new ManualClock(START) });
        return {
          requests: hook.requests.map((r) => ({
            url: r.url,
            probe: r.headers['x-probe'],
            lines: (JSON.parse(r.body || '[]') as Array<{ marker?: string }>).map((l) => l.marker),
          })),
          sent: stats.webhook?.sent,
        };
      }),
    without,
  );
}

/** Syslog transport checks: what the receivers got (given up after a short wait when nothing comes). */
function syslogTransport(change: Fragment, without: Fragment): Effect {
  return effect(
    change,
    async (config) => {
      syslog.tcpText = '';
      syslog.udpText = '';
      await throughTransports(config);
      await until(() => syslog.tcpText.length + syslog.udpText.length > 0, 1000).catch(() => undefined);
      const received = `${syslog.tcpText}${syslog.udpText}`;
      return {
        tcp: syslog.tcpText.length > 0,
        udp: syslog.udpText.length > 0,
        pri: [...received.matchAll(/<(\d+)>1 /g)].map((m) => m[1]).sort(),
        app: [...new Set([...received.matchAll(/<\d+>1 \S+ \S+ (\S+) /g)].map((m) => m[1]))],
        markers: [...received.matchAll(/"marker":"([a-z-]+)"/g)].map((m) => m[1]).sort(),
      };
    },
    without,
  );
}

/** The OAuth 2.0 token request a client made, as the fake token endpoint received it. */
async function tokenRequest(config: ThreatConfig) {
  tokens.requests.length = 0;
  const { client } = h.client(config);
  if (!client.oauth2) return { oauth2: false };
  await client.oauth2.getToken();
  const request = tokens.requests[0];
  const [clientId, secret] = Buffer.from(String(request?.headers.authorization).slice(6), 'base64')
    .toString('utf8')
    .split(':')
    .map(decodeURIComponent);
  return { oauth2: true, path: request?.url, clientId, secret, scope: new URLSearchParams(request?.body).get('scope') };
}

/** What the monitoring alerts did after the probe's key was refused twice, a second apart. */
async function alertsAfterRefusals(config: ThreatConfig) {
  hook.requests.length = 0;
  smtp.mails.length = 0;
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('auth_error', { message: 'key refused', statusCode: 401 })(probe);
  await client.scout(IP);
  await clock.advance(1000);
  await client.scout(IP2);
  const stats = () => client.monitoringAlertStats();
  const tried = () => Object.values(stats().channels).reduce((n, c) => n + c.sent + c.failed, 0);
  await until(() => tried() >= stats().raised, 10_000);
  return {
    raised: stats().raised,
    suppressed: stats().suppressed,
    channels: stats().channels,
    webhook: hook.requests.map((r) => ({ url: r.url, probe: r.headers['x-probe'] })),
    mails: smtp.mails.map((m) => ({ ...m })),
  };
}

/** Monitoring alert e-mail checks: one refused key, over SMTP to the recorder. */
function emailAlert(change: Fragment, without: Fragment = {}): Effect {
  const email = () => ({
    enterprise: {
      monitoring: {
        alerts: {
          email: {
            from: 'threatlib@alerts.test',
            to: ['soc@alerts.test'],
            smtp: { host: '127.0.0.1', port: smtp.port },
          },
        },
      },
    },
  });
  return effect(change, alertsAfterRefusals, () => configWith(email(), resolve(without)));
}

/** A webhook alert channel on the recorder. */
const ALERT_HOOK = () => ({ enterprise: { monitoring: { alerts: { webhook: { url: `${hook.url}/alerts` } } } } });

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

/** How many alerts the client stored after correlating `IP` `times` times as a threat (risk score 8, "high"). */
async function alertsRaised(config: ThreatConfig, times: number): Promise<number> {
  const { client, probes } = h.client(configWith(config, { strategy: 'aggressive' }), {
    clock: new ManualClock(START),
  });
  for (const probe of probes) probe.answer = () => answer('malicious', 0.8);
  for (let i = 0; i < times; i++) await client.correlate(IP);
  await (client.alerts as { settled?: () => Promise<void> }).settled?.();
  return (await client.alerts.list()).items.length;
}

/** The `campaignDetected` reports of three threats sharing a malware family, `apartMs` apart. */
async function campaignsReported(config: ThreatConfig, apartMs: number): Promise<string[]> {
  const clock = new ManualClock(START);
  const { client, probes } = h.client(configWith(config, { strategy: 'aggressive' }), { clock });
  for (const probe of probes) probe.answer = () => answer('malicious', 0.8, { malwareFamilies: ['Emotet'] });
  const reports: string[] = [];
  client.on('campaignDetected', (campaign) => reports.push(`${campaign.status}:${campaign.indicatorCount}`));
  for (const ip of [IP, IP2, IP3]) {
    await client.correlate(ip);
    await clock.advance(apartMs);
  }
  return reports;
}

function listFile(name: string, text: string): string {
  const file = h.path(name);
  writeFileSync(file, text);
  return file;
}

const LIST_WITH_IP = listFile('with-ip.txt', `${IP}\n`);
const LIST_WITHOUT_IP = listFile('without-ip.txt', '203.0.113.251\n');
const CSV_IP_FIRST = listFile('ip-first.csv', `indicator,comment\n${IP},seen in a campaign\n`);
const CSV_IP_SECOND = listFile('ip-second.csv', `comment,indicator\nseen in a campaign,${IP}\n`);
const LIST_WITH_DOMAIN = listFile('with-domain.txt', 'listed.example.org\n');
const WARNINGLIST = listFile(
  'warninglist.json',
  JSON.stringify({ name: 'probe warninglist', type: 'cidr', list: [`${IP}/32`] }),
);
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
const feeds = new HttpRecorder();
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

const REDIS_A = uniquePrefix('every-option-db');
const REDIS_B = uniquePrefix('every-option-prefix');
const REDIS_C = uniquePrefix('every-option-other-prefix');
const REDIS_CLUSTER_A = uniquePrefix('every-option-cluster-db');
const REDIS_CLUSTER_B = uniquePrefix('every-option-cluster-prefix');
const REDIS_CLUSTER_C = uniquePrefix('every-option-cluster-other-prefix');

const CACHE_TYPE_DIR = h.path('cache-type');
const CACHE_DIR_A = h.path('cache-a');
const CACHE_DIR_B = h.path('cache-b');

// ---------------------------------------------------------------------------------------------------------------
// One check per option.

const CUSTOM = { strategy: 'custom', thresholds: { confidence: 0.5, consensus: 1, riskScore: 1 } };
const AUTH = () => ({
  security: { authentication: { type: 'oauth2', tokenEndpoint: `${tokens.url}/token`, clientId: 'threatlib' } },
});
const SECRET_ENV = { security: { authentication: { clientSecret: 'probe-secret' } } };

const FILE_LOGS = Object.fromEntries(
  ['type', 'filename', 'maxSize', 'maxFiles', 'compress', 'level', 'filter'].map((k) => [k, h.path(`logs-${k}`)]),
);

const CHECKS: Record<string, Check> = {
  sources: effect({ sources: ['feed_urls'] }, async (c) => h.client(c).client.sources),
  strategy: effect({ strategy: 'aggressive' }, async (c) => (await verdict(c)).isThreat),
  'thresholds.confidence': effect(
    { thresholds: { confidence: 0.95 } },
    async (c) => (await verdict(c)).isThreat,
    CUSTOM,
  ),
  'thresholds.consensus': effect({ thresholds: { consensus: 3 } }, async (c) => (await verdict(c)).isThreat, CUSTOM),
  'thresholds.riskScore': effect({ thresholds: { riskScore: 10 } }, async (c) => (await verdict(c)).isThreat, CUSTOM),
  'thresholds.correlationWeight': effect(
    { thresholds: { correlationWeight: 4 } },
    async (c) => (await verdict(c, 0.5)).riskScore,
    CUSTOM,
  ),

  'apiKeys.*': effect({ apiKeys: { feed_probe: 'probe-key-1' } }, async (c) => (await probeCalls(c))[0]?.apiKey),
  'apiKeys.*.key': effect(
    { apiKeys: { feed_probe: { key: 'probe-key-2' } } },
    async (c) => (await probeCalls(c))[0]?.apiKey,
  ),
  'apiKeys.*.endpoint': effect(
    { apiKeys: { feed_probe: { endpoint: 'https://mirror.example/api' } } },
    async (c) => (await probeCalls(c))[0]?.endpoint,
  ),
  'apiKeys.*.rateLimit': effect({ apiKeys: { feed_probe: { rateLimit: 7 } } }, async (c) => limits(c)),
  'apiKeys.*.timeout': effect({ apiKeys: { feed_probe: { timeout: 20 } } }, async (c) => statuses(c, slowProbe(150))),
  'apiKeys.*.categories': effect(
    { apiKeys: { feed_probe: { categories: [14, 18] } } },
    async (c) => (await probeCalls(c))[0]?.options,
  ),

  'security.enforceHttps': effect(
    { security: { enforceHttps: true } },
    async (c) => {
      try {
        h.client(c);
        return 'accepted';
      } catch (error) {
        return (error as Error).name;
      }
    },
    { apiKeys: { feed_probe: { endpoint: 'http://mirror.example/api' } } },
  ),
  'security.validateCertificates': effect({ security: { validateCertificates: false } }, async (c) => {
    const { client, probe } = h.client(configWith(c, { apiKeys: { feed_probe: { endpoint: tls.url } } }));
    probe.answer = async (context) => {
      await context.http.request(context.endpoint);
      return answer('malicious');
    };
    return (await client.scout(IP)).results.find((r) => r.feed === 'feed_probe')?.status;
  }),
  'security.autoLock': effect({ security: { autoLock: false } }, (c) =>
    vaultSees(c, async (vault, clock) => {
      await clock.advance(400_000);
      return vault.isLocked;
    }),
  ),
  'security.lockTimeout': effect({ security: { lockTimeout: 1000 } }, (c) =>
    vaultSees(c, async (vault, clock) => {
      await clock.advance(2000);
      return vault.isLocked;
    }),
  ),
  'security.enableAuditLog': effect({ security: { enableAuditLog: true } }, (c) =>
    eventsSeen(configWith(c, { events: { audit: handler('audit') } }), async (client) => client.updateConcurrency(3)),
  ),
  'security.encryption.algorithm': { kind: 'only', with: { security: { encryption: { algorithm: 'aes-128-gcm' } } } },
  'security.encryption.keyDerivation': effect(
    { security: { encryption: { keyDerivation: 'argon2id' } } },
    (c) => vaultSees(c, (vault) => vault.kdf.algorithm),
    { security: { encryption: { keyDerivation: 'pbkdf2' } } },
  ),
  'security.encryption.iterations': effect({ security: { encryption: { iterations: 2000 } } }, (c) =>
    vaultSees(c, (vault) => vault.kdf),
  ),
  'security.encryption.saltSize': effect({ security: { encryption: { saltSize: 16 } } }, (c) =>
    vaultSees(c, (vault) => envelopeOf(vault).saltBytes),
  ),
  'security.encryption.tagSize': effect({ security: { encryption: { tagSize: 12 } } }, (c) =>
    vaultSees(c, (vault) => {
      const { tagLength, ciphertextBytes } = envelopeOf(vault);
      return { tagLength, ciphertextBytes };
    }),
  ),
  'security.memoryProtection.secureErase': effect({ security: { memoryProtection: { secureErase: false } } }, (c) =>
    vaultSees(c, (vault) => {
      const bytes = Buffer.from('a-key-given-as-bytes');
      vault.set('feed_bytes', bytes);
      vault.lock('manual');
      return bytes.toString('utf8');
    }),
  ),
  'security.memoryProtection.obfuscateKeys': effect({ security: { memoryProtection: { obfuscateKeys: true } } }, (c) =>
    vaultSees(c, (vault) => {
      const bytes = Buffer.from('a-key-given-as-bytes');
      vault.set('feed_bytes', bytes);
      return bytes.toString('utf8');
    }),
  ),
  'security.memoryProtection.preventDumps': effect({ security: { memoryProtection: { preventDumps: true } } }, (c) => {
    const report = process.report as NodeJS.ProcessReport & { excludeEnv: boolean };
    const before = report.excludeEnv;
    report.excludeEnv = false;
    return vaultSees(c, () => report.excludeEnv).finally(() => {
      report.excludeEnv = before;
    });
  }),

  // Basic and JWT authentication, and the parts of OAuth 2.0 that check incoming tokens, are the REST server's.
  ...Object.fromEntries(
    [
      '[type=basic].type',
      '[type=basic].users',
      '[type=basic].realm',
      '[type=jwt].type',
      '[type=jwt].secret',
      '[type=jwt].publicKey',
      '[type=jwt].jwksUrl',
      '[type=jwt].issuer',
      '[type=jwt].audience',
      '[type=jwt].algorithms',
      '[type=oauth2].issuer',
      '[type=oauth2].jwksUrl',
      '[type=oauth2].introspectionEndpoint',
    ].map((leaf) => [
      `security.authentication${leaf}`,
      elsewhere('packages/server/src/auth/authentication-options.test.ts', `'${leaf}': {`),
    ]),
  ),
  'security.authentication[type=oauth2].type': effect(() => configWith(AUTH(), SECRET_ENV), tokenRequest),
  'security.authentication[type=oauth2].tokenEndpoint': effect(
    () => ({ security: { authentication: { tokenEndpoint: `${tokens.url}/oauth2/token` } } }),
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].clientId': effect(
    { security: { authentication: { clientId: 'another-client' } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].clientSecret': effect(
    { security: { authentication: { clientSecret: 'another-secret' } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),
  'security.authentication[type=oauth2].scopes': effect(
    { security: { authentication: { scopes: ['threat-intel:read'] } } },
    tokenRequest,
    () => configWith(AUTH(), SECRET_ENV),
  ),

  'performance.maxConcurrency': effect(
    { performance: { maxConcurrency: 3 } },
    async (c) => h.client(c).client.concurrency,
  ),
  'performance.requestTimeout': effect({ performance: { requestTimeout: 20 } }, async (c) =>
    statuses(c, slowProbe(150)),
  ),
  'performance.retryAttempts': effect(
    { performance: { retryAttempts: 1 } },
    async (c) => lookupsOver(c, [IP], { setup: failing('error', { message: 'unavailable', statusCode: 503 }) }),
    { performance: { retryAttempts: 3, retryDelay: 0 } },
  ),
  'performance.maxQueueWait': effect(
    { performance: { maxQueueWait: 10 } },
    async (c) => {
      const clock = new ManualClock(START);
      const { client } = h.client(c, { clock });
      await client.scout(IP);
      const second = client.scout(IP2);
      const status = await Promise.race([
        second.then((s) => s.results.find((r) => r.feed === 'feed_probe')?.status),
        sleep(100).then(() => 'still waiting for quota'),
      ]);
      await clock.advance(61_000);
      await second;
      return status;
    },
    // A lookup time limit the minute's wait fits in: maxQueueWait cuts the wait short within it.
    { performance: { lookupTimeout: 120_000, rateLimit: { perFeed: { feed_probe: { requestsPerMinute: 1 } } } } },
  ),
  'performance.lookupTimeout': effect({ performance: { lookupTimeout: 20 } }, async (c) => statuses(c, slowProbe(150))),
  'performance.retryDelay': effect({ performance: { retryDelay: 4000 } }, async (c) => retriesOver(c, [1000]), {
    performance: { retryAttempts: 1 },
  }),
  'performance.backoffMultiplier': effect(
    { performance: { backoffMultiplier: 6 } },
    async (c) => retriesOver(c, [1000, 2000]),
    { performance: { retryAttempts: 2 } },
  ),
  'performance.circuitBreaker.failureThreshold': effect(
    { performance: { circuitBreaker: { failureThreshold: 1 } } },
    async (c) => (await breaker(c, async (scout) => void (await scout()))).state,
  ),
  'performance.circuitBreaker.resetTimeout': effect(
    { performance: { circuitBreaker: { resetTimeout: 5000 } } },
    async (c) => (await breaker(c, async (scout) => void (await scout()))).resetMs,
    { performance: { circuitBreaker: { failureThreshold: 1 } } },
  ),
  'performance.circuitBreaker.monitoringWindow': effect(
    { performance: { circuitBreaker: { monitoringWindow: 5000 } } },
    async (c) =>
      (
        await breaker(c, async (scout, clock) => {
          await scout();
          await clock.advance(10_000);
          await scout();
        })
      ).state,
    { performance: { circuitBreaker: { failureThreshold: 2 } } },
  ),
  'performance.rateLimit.enabled': effect({ performance: { rateLimit: { enabled: false } } }, async (c) =>
    limits(configWith(c, { sources: ['feed_otx'] }), 'feed_otx'),
  ),
  'performance.rateLimit.requestsPerSecond': effect(
    { performance: { rateLimit: { requestsPerSecond: 3 } } },
    async (c) => limits(c),
  ),
  'performance.rateLimit.burstSize': effect({ performance: { rateLimit: { burstSize: 9 } } }, async (c) => limits(c), {
    performance: { rateLimit: { requestsPerSecond: 3 } },
  }),
  'performance.rateLimit.requestsPerMinute': effect(
    { performance: { rateLimit: { requestsPerMinute: 30 } } },
    async (c) => limits(c),
  ),
  'performance.rateLimit.requestsPerHour': effect({ performance: { rateLimit: { requestsPerHour: 300 } } }, async (c) =>
    limits(c),
  ),
  'performance.rateLimit.requestsPerDay': effect({ performance: { rateLimit: { requestsPerDay: 3000 } } }, async (c) =>
    limits(c),
  ),
  'performance.rateLimit.quotaLowThreshold': effect(
    { performance: { rateLimit: { quotaLowThreshold: 0.5 } } },
    (c) => quotaLowEvents(c, 6),
    { performance: { rateLimit: { perFeed: { feed_probe: { requestsPerMinute: 10 } } } } },
  ),
  ...Object.fromEntries(
    (
      [
        ['requestsPerSecond', 4],
        ['burstSize', 8],
        ['requestsPerMinute', 40],
        ['requestsPerHour', 400],
        ['requestsPerDay', 4000],
      ] as const
    ).map(([window, value]) => [
      `performance.rateLimit.perFeed.*.${window}`,
      effect(
        { performance: { rateLimit: { perFeed: { feed_probe: { [window]: value } } } } },
        async (c) => limits(c),
        window === 'burstSize'
          ? { performance: { rateLimit: { perFeed: { feed_probe: { requestsPerSecond: 2 } } } } }
          : {},
      ),
    ]),
  ),

  'caching.enabled': effect({ caching: { enabled: true } }, async (c) => lookupsOver(c, [IP, IP])),
  'caching.type': effect(
    { caching: { type: 'file' } },
    async (c) => {
      await lookupsOver(c, [IP]);
      return filesIn(CACHE_TYPE_DIR).length > 0;
    },
    { caching: { enabled: true, filesystem: { directory: CACHE_TYPE_DIR } } },
  ),
  'caching.ttl': effect(
    { caching: { ttl: 3 * 3_600_000 } },
    async (c) => lookupsOver(c, [IP, IP], { gapMs: 2 * 3_600_000 }),
    { caching: { enabled: true } },
  ),
  'caching.negativeTtl': effect(
    { caching: { negativeTtl: 3_600_000 } },
    async (c) => lookupsOver(c, [IP, IP], { gapMs: 20 * 60_000, setup: (p) => (p.answer = () => answer('clean', 0)) }),
    { caching: { enabled: true } },
  ),
  'caching.maxSize': effect({ caching: { maxSize: 1 } }, async (c) => lookupsOver(c, [IP, IP2, IP]), {
    caching: { enabled: true },
  }),
  'caching.compression': effect(
    { caching: { compression: true } },
    async (c) => {
      const dir = freshDir(h.path('cache-compression'));
      await lookupsOver(configWith(c, { caching: { filesystem: { directory: dir } } }), [IP]);
      const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      return entries.map((e) => readFileSync(join(e.parentPath, e.name)).subarray(0, 2).toString('hex'));
    },
    { caching: { enabled: true, type: 'file' } },
  ),
  'caching.kvserver.host': effect(
    { caching: { kvserver: { host: 'localhost' } } },
    async (c) => {
      const { client } = h.client(configWith(c, { caching: { kvserver: { port: dead } } }));
      return client.start().then(
        () => 'started',
        (error: Error) => error.message.replace(/\d+/g, 'N'),
      );
    },
    { caching: { enabled: true, type: 'kvserver' } },
  ),
  'caching.kvserver.port': effect(
    { caching: { kvserver: { port: E2E_REDIS.port } } },
    async (c) => {
      const { client } = h.client(c);
      return client.start().then(
        () => 'started',
        (error: Error) => error.name,
      );
    },
    { caching: { enabled: true, type: 'kvserver', kvserver: { port: 1 } } },
    'redis',
  ),
  'caching.kvserver.password': effect(
    { caching: { kvserver: { password: 'kv-password-sent-at-connect' } } },
    async (c) => {
      resp.received = '';
      const { client } = h.client(configWith(c, { caching: { kvserver: { port: resp.port } } }));
      await client.start().catch(() => undefined);
      return resp.received.includes('kv-password-sent-at-connect');
    },
    { caching: { enabled: true, type: 'kvserver' } },
  ),
  'caching.kvserver.db': effect(
    { caching: { kvserver: { db: 5 } } },
    async (c) => redisKeys(c, [REDIS_A]),
    { caching: { enabled: true, type: 'kvserver', kvserver: { ...E2E_REDIS, keyPrefix: REDIS_A } } },
    'redis',
  ),
  'caching.kvserver.keyPrefix': effect(
    { caching: { kvserver: { keyPrefix: REDIS_C } } },
    async (c) => redisKeys(c, [REDIS_B, REDIS_C]),
    { caching: { enabled: true, type: 'kvserver', kvserver: { ...E2E_REDIS, keyPrefix: REDIS_B } } },
    'redis',
  ),
  'caching.filesystem.directory': effect(
    { caching: { filesystem: { directory: CACHE_DIR_B } } },
    async (c) => {
      await lookupsOver(c, [IP]);
      return [filesIn(CACHE_DIR_A).length > 0, filesIn(CACHE_DIR_B).length > 0];
    },
    { caching: { enabled: true, type: 'file', filesystem: { directory: CACHE_DIR_A } } },
  ),
  'caching.filesystem.maxSize': effect(
    { caching: { filesystem: { maxSize: '10B' } } },
    async (c) => {
      const dir = freshDir(h.path('cache-max-size'));
      await lookupsOver(configWith(c, { caching: { filesystem: { directory: dir } } }), [IP]);
      return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    },
    { caching: { enabled: true, type: 'file' } },
  ),
  'caching.filesystem.cleanupInterval': effect(
    { caching: { filesystem: { cleanupInterval: 20 } } },
    async (c) => {
      const dir = freshDir(h.path('cache-cleanup'));
      const clock = new ManualClock(START);
      const { client } = h.client(configWith(c, { caching: { filesystem: { directory: dir } } }), { clock });
      await client.start();
      await client.scout(IP);
      const files = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
      const written = files();
      // Expired on the cache's clock; only a cleanup run (a real timer) removes it.
      await clock.advance(2 * 3_600_000);
      await until(() => files() === 0, 1000).catch(() => undefined);
      const left = files();
      await client.stop();
      return { written, left };
    },
    { caching: { enabled: true, type: 'file' } },
  ),

  ...Object.fromEntries(
    (
      [
        ['threatFound', { strategy: 'aggressive' }, async (client: ThreatClient) => client.correlate(IP)],
        [
          'feedError',
          {},
          async (client: ThreatClient, probe: ProbeFeed) => {
            failing('error', { message: 'unavailable', statusCode: 503 })(probe);
            await client.scout(IP);
          },
        ],
        ['requestComplete', {}, async (client: ThreatClient) => client.scout(IP)],
        [
          'rateLimited',
          {},
          async (client: ThreatClient, probe: ProbeFeed) => {
            failing('rate_limited', { message: 'slow down', statusCode: 429 })(probe);
            await client.scout(IP);
          },
        ],
        [
          'cacheEvicted',
          { caching: { enabled: true, maxSize: 1 } },
          async (client: ThreatClient) => {
            await client.scout(IP);
            await client.scout(IP2);
            await client.scout(IP3);
          },
        ],
        ['audit', { security: { enableAuditLog: true } }, async (client: ThreatClient) => client.updateConcurrency(4)],
        [
          'campaignDetected',
          { strategy: 'aggressive' },
          async (client: ThreatClient, probe: ProbeFeed) => {
            probe.answer = () => answer('malicious', 0.8, { malwareFamilies: ['Emotet'] });
            for (const ip of [IP, IP2, IP3]) await client.correlate(ip);
          },
        ],
      ] as const
    ).map(([event, without, act]) => [
      `events.${event}`,
      effect({ events: { [event]: handler(event) } }, (c) => eventsSeen(c, act), without),
    ]),
  ),
  'events.vaultLocked': effect({ events: { vaultLocked: handler('vaultLocked') } }, async (c) => {
    seen.length = 0;
    await vaultSees(c, (vault) => vault.lock('manual'));
    return [...seen];
  }),

  'browser.corsProxy': effect(
    () => ({ sources: ['feed_urls'], browser: { corsProxy: `${hook.url}/` } }),
    async (c) => proxied(c, IP),
    () => ({ sources: ['feed_urls'], apiKeys: { feed_urls: { endpoint: `http://127.0.0.1:${dead}/v1` } } }),
  ),
  'browser.proxy.headers': effect(
    { browser: { proxy: { headers: { 'x-proxy-token': 'page-token' } } } },
    async (c) => (await proxied(c, IP)).map((r) => r.headers['x-proxy-token'] ?? null),
    () => ({ sources: ['feed_urls'], browser: { corsProxy: `${hook.url}/` } }),
  ),
  'browser.proxy.addsKeys': effect(
    { browser: { proxy: { addsKeys: true } } },
    async (c) => (await proxied(c, IP)).length,
    () => ({ sources: ['feed_otx'], browser: { corsProxy: `${hook.url}/` } }),
  ),
  'browser.fallbackMode': effect({ browser: { fallbackMode: 'demo' } }, (c) => statuses(c, () => {}, '198.51.100.23'), {
    sources: ['feed_otx'],
  }),
  'browser.offlineRetention': effect(
    { browser: { offlineRetention: 3_600_000 } },
    async (c) => {
      const clock = new ManualClock(START);
      const { client, probe } = h.client(c, { clock });
      await client.scout(IP);
      await clock.advance(24 * 3_600_000);
      probe.answer = () => failed('error', { message: 'probe unreachable', network: true });
      return (await client.scout(IP)).results.map((r) => r.source ?? r.status);
    },
    { browser: { fallbackMode: 'offline' }, caching: { enabled: true } },
  ),
  'browser.secureContext': effect({ browser: { secureContext: false } }, async (c) => {
    vi.stubGlobal('isSecureContext', false);
    try {
      h.client(c);
      return 'accepted';
    } catch (error) {
      return (error as Error).name;
    } finally {
      vi.unstubAllGlobals();
    }
  }),
  'storage.type': effect({ storage: { type: 'localstorage' } }, async (c) => [...(await pageStorage(c)).keys()]),
  'storage.dbName': effect(
    { storage: { dbName: 'other-page' } },
    async (c) => [...(await pageStorage(c)).keys()].map((key) => key.split('/')[0]),
    { storage: { type: 'localstorage' } },
  ),
  'storage.version': effect({ storage: { version: 3 } }, async (c) => (await pageStorage(c)).get('threatlib#version'), {
    storage: { type: 'localstorage' },
  }),
  'storage.encryptionKey': effect(
    { storage: { encryptionKey: 'a page passphrase' } },
    async (c) => [...(await pageStorage(c)).keys()].some((key) => key.includes('feed_probe')),
    { storage: { type: 'localstorage' } },
  ),
  // The client has no page: the served dashboard's page carries the mounted client's `pwa` for its worker.
  ...Object.fromEntries(
    ['enabled', 'cacheStrategy', 'offlineData', 'syncOnReconnect'].map((option) => [
      `pwa.${option}`,
      elsewhere('packages/server/src/routes/dashboard-routes.test.ts', 'config.pwa', `${option}:`),
    ]),
  ),
  ...Object.fromEntries(
    (
      [
        ['enabled', 'enterprise: { siemIntegration: { enabled: true'],
        ['endpoint', 'endpoint: `syslog+tls://127.0.0.1:'],
        ['format', "format: 'leef'"],
        ['leef.version', "leef: { version: '1.0' }"],
        ['leef.delimiter', "delimiter: '~'"],
        ['headers', 'headers: { authorization:'],
        ['tls.ca', 'tls: { ca: pki.ca }'],
        ['tls.rejectUnauthorized', 'rejectUnauthorized: false'],
        ['tls.servername', "servername: 'localhost'"],
      ] as const
    ).map(([option, mention]) => [
      `enterprise.siemIntegration.${option}`,
      elsewhere('packages/siem/src/forwarder/configured-forwarder.test.ts', mention),
    ]),
  ),

  'logging.enabled': effect({ logging: { enabled: false } }, logLines),
  'logging.level': effect({ logging: { level: 'warn' } }, logLines),
  'logging.format': effect({ logging: { format: 'text' } }, async (c) => (await logLines(c)).map((l) => l[0])),
  'logging.stderr': effect({ logging: { stderr: false } }, async (c) => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const logger = createLogger(parseConfig(c).logging);
      logger.info({ marker: 'stderr-line' }, 'to stderr?');
      await closeLogger(logger);
    } finally {
      spy.mockRestore();
    }
    return written.some((w) => w.includes('stderr-line'));
  }),
  'logging.filters.excludeFeeds': effect({ logging: { filters: { excludeFeeds: ['otx'] } } }, logLines),
  'logging.filters.includeOnly': effect({ logging: { filters: { includeOnly: ['vault'] } } }, logLines),

  'logging.transports[type=file].type': fileTransport(FILE_LOGS.type as string, {
    logging: { transports: [{ type: 'file', filename: join(FILE_LOGS.type as string, 'a.log') }] },
  }),
  'logging.transports[type=file].filename': fileTransport(
    FILE_LOGS.filename as string,
    { logging: { transports: [{ type: 'file', filename: join(FILE_LOGS.filename as string, 'b.log') }] } },
    { logging: { transports: [{ type: 'file', filename: join(FILE_LOGS.filename as string, 'a.log') }] } },
  ),
  ...Object.fromEntries(
    (
      [
        ['maxSize', { maxFiles: 2 }, { maxSize: '1KB' }],
        ['maxFiles', { maxSize: '1KB' }, { maxFiles: 2 }],
        ['compress', { maxSize: '1KB', maxFiles: 2 }, { compress: true }],
        ['level', {}, { level: 'error' }],
        ['filter', {}, { filter: (line: Record<string, unknown>) => line.keep === true }],
      ] as const
    ).map(([option, base, change]) => {
      const filename = join(FILE_LOGS[option] as string, 'a.log');
      return [
        `logging.transports[type=file].${option}`,
        fileTransport(
          FILE_LOGS[option] as string,
          { logging: { transports: [{ type: 'file', filename, ...base, ...change }] } },
          { logging: { transports: [{ type: 'file', filename, ...base }] } },
        ),
      ];
    }),
  ),

  'logging.transports[type=webhook].type': effect(
    () => ({ logging: { transports: [{ type: 'webhook', url: `${hook.url}/logs` }] } }),
    async (c) => {
      hook.requests.length = 0;
      await throughTransports(c, { clock: new ManualClock(START) });
      return hook.requests.length;
    },
  ),
  ...Object.fromEntries(
    (
      [
        ['url', {}, { url: '/other-logs' }],
        ['headers', {}, { headers: { 'x-probe': 'on' } }],
        ['batchSize', {}, { batchSize: 1 }],
        ['flushInterval', {}, { flushInterval: 500 }],
        ['retries', { url: '/fail' }, { retries: 0 }],
        ['maxBuffer', { url: 'dead' }, { maxBuffer: 1 }],
        ['timeout', { url: '/slow', retries: 0 }, { timeout: 100 }],
        ['level', {}, { level: 'error' }],
        ['filter', {}, { filter: (line: Record<string, unknown>) => line.keep === true }],
      ] as const
    ).map(([option, base, change]) => [
      `logging.transports[type=webhook].${option}`,
      webhookTransport(
        { logging: { transports: [{ type: 'webhook', ...base, ...change }] } },
        { logging: { transports: [{ type: 'webhook', ...base }] } },
        async (c) => {
          hook.requests.length = 0;
          hook.respond = (r) =>
            r.url === '/fail' ? { status: 503 } : r.url === '/slow' ? { status: 204, delayMs: 1500 } : { status: 204 };
          // The URL is relative to the recorder until here ("dead": a port nothing listens on).
          const transport = firstTransport(c) as { url?: string };
          const url =
            transport.url === 'dead' ? `http://127.0.0.1:${dead}/logs` : `${hook.url}${transport.url ?? '/logs'}`;
          const config = configWith(c, { logging: { transports: [{ ...transport, url }] } });
          const clock = new ManualClock(START);
          let early = -1;
          const stats = await throughTransports(config, {
            // Real timers for the request timeout; the clock for flush intervals and retry delays.
            ...(option === 'timeout' ? {} : { clock }),
            during: async (logger) => {
              if (option === 'maxBuffer') early = logTransportStats(logger).webhook?.dropped ?? -1;
              if (option === 'retries') {
                // Closing gives a failing endpoint no more tries: the retries are seen before it.
                for (let i = 0; i < 8; i++) {
                  await clock.advance(30_000);
                  await sleep(10);
                }
                early = hook.requests.length;
              }
              if (option !== 'flushInterval') return;
              await clock.advance(1000);
              await until(() => hook.requests.length > 0, 1000).catch(() => undefined);
              early = hook.requests.length;
            },
          });
          hook.respond = () => ({ status: 204 });
          return {
            early,
            requests: hook.requests.map((r) => ({
              url: r.url,
              probe: r.headers['x-probe'],
              lines: (JSON.parse(r.body || '[]') as Array<{ marker?: string }>).map((l) => l.marker),
            })),
            sent: stats.webhook?.sent,
            dropped: stats.webhook?.dropped,
          };
        },
      ),
    ]),
  ),

  'logging.transports[type=syslog].type': syslogTransport(
    () => ({ logging: { transports: [{ type: 'syslog', port: syslog.port, protocol: 'tcp' }] } }),
    {},
  ),
  ...Object.fromEntries(
    (
      [
        ['host', { protocol: 'tcp' }, { host: '127.0.0.2' }],
        ['port', { protocol: 'tcp' }, { port: 'dead' }],
        ['facility', {}, { facility: 'local4' }],
        ['protocol', {}, { protocol: 'tcp' }],
        ['appName', {}, { appName: 'threatlib-probe' }],
        ['level', {}, { level: 'error' }],
        ['filter', {}, { filter: (line: Record<string, unknown>) => line.keep === true }],
      ] as const
    ).map(([option, base, change]) => [
      `logging.transports[type=syslog].${option}`,
      effect(
        { logging: { transports: [{ type: 'syslog', ...base, ...change }] } },
        async (c) => {
          const transport = firstTransport(c);
          const port = transport.port === 'dead' ? dead : syslog.port;
          return syslogTransport({}, {}).observe(configWith(c, { logging: { transports: [{ ...transport, port }] } }));
        },
        { logging: { transports: [{ type: 'syslog', ...base }] } },
      ),
    ]),
  ),

  'enterprise.streamProcessing.enabled': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'enterprise: { streamProcessing: { enabled: true',
  ),
  'enterprise.streamProcessing.batchSize': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'batchSize: 250',
  ),
  'enterprise.streamProcessing.flushInterval': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'flushInterval: 50',
  ),
  'enterprise.monitoring.healthChecks': elsewhere(
    'packages/server/src/health/client-health.test.ts',
    'enterprise: { monitoring: { healthChecks: false } }',
  ),
  'enterprise.monitoring.metrics': effect(
    { enterprise: { monitoring: { metrics: false } } },
    async (c) => createClientMetrics(h.client(c).client).getMetricsAsArray().length > 0,
  ),
  'enterprise.monitoring.alerts.cooldownMs': effect(
    { enterprise: { monitoring: { alerts: { cooldownMs: 500 } } } },
    async (c) => {
      const { raised, suppressed } = await alertsAfterRefusals(c);
      return { raised, suppressed };
    },
    ALERT_HOOK,
  ),
  'enterprise.monitoring.alerts.webhook.url': effect(
    () => ({ enterprise: { monitoring: { alerts: { webhook: { url: `${hook.url}/other-alerts` } } } } }),
    async (c) => (await alertsAfterRefusals(c)).webhook,
    ALERT_HOOK,
  ),
  'enterprise.monitoring.alerts.webhook.headers': effect(
    { enterprise: { monitoring: { alerts: { webhook: { headers: { 'x-probe': 'on' } } } } } },
    async (c) => (await alertsAfterRefusals(c)).webhook,
    ALERT_HOOK,
  ),
  // The address form: alerts to and from it through the local relay (localhost:25, where nothing listens here).
  'enterprise.monitoring.alerts.email': effect(
    { enterprise: { monitoring: { alerts: { email: 'soc@alerts.test' } } } },
    async (c) => Object.keys((await alertsAfterRefusals(c)).channels),
  ),
  'enterprise.monitoring.alerts.email.from': emailAlert({
    enterprise: { monitoring: { alerts: { email: { from: 'someone-else@alerts.test' } } } },
  }),
  'enterprise.monitoring.alerts.email.to': emailAlert({
    enterprise: { monitoring: { alerts: { email: { to: ['oncall@alerts.test', 'soc@alerts.test'] } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.host': emailAlert({
    enterprise: { monitoring: { alerts: { email: { smtp: { host: '127.0.0.2' } } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.port': emailAlert(() => ({
    enterprise: { monitoring: { alerts: { email: { smtp: { port: dead } } } } },
  })),
  'enterprise.monitoring.alerts.email.smtp.secure': emailAlert({
    enterprise: { monitoring: { alerts: { email: { smtp: { secure: true } } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.user': emailAlert(
    { enterprise: { monitoring: { alerts: { email: { smtp: { user: 'alerts' } } } } } },
    { enterprise: { monitoring: { alerts: { email: { smtp: { password: 'smtp-password' } } } } } },
  ),
  'enterprise.monitoring.alerts.email.smtp.password': emailAlert(
    { enterprise: { monitoring: { alerts: { email: { smtp: { password: 'another-password' } } } } } },
    { enterprise: { monitoring: { alerts: { email: { smtp: { user: 'alerts', password: 'smtp-password' } } } } } },
  ),

  integrations: elsewhere('packages/core/src/client/integrations.test.ts', 'integrations: {'),

  'warninglists.builtin': effect(
    { warninglists: { builtin: false } },
    async (c) => (await probeCalls(c, PRIVATE_IP)).length,
  ),
  'warninglists.files': effect({ warninglists: { files: [WARNINGLIST] } }, async (c) => (await probeCalls(c)).length),

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

  'alerting.enabled': effect({ alerting: { enabled: false } }, (c) => alertsRaised(c, 1)),
  'alerting.minSeverity': effect({ alerting: { minSeverity: 'critical' } }, (c) => alertsRaised(c, 1)),
  'alerting.dedupeWindowMs': effect({ alerting: { dedupeWindowMs: 0 } }, (c) => alertsRaised(c, 2)),

  'campaigns.enabled': effect({ campaigns: { enabled: false } }, (c) => campaignsReported(c, 0)),
  'campaigns.minIndicators': effect({ campaigns: { minIndicators: 2 } }, (c) => campaignsReported(c, 0)),
  'campaigns.windowMs': effect({ campaigns: { windowMs: 60_000 } }, (c) => campaignsReported(c, 120_000)),

  'cluster.enabled': effect(
    { cluster: { enabled: true } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { kvserver: { port: dead } },
    }),
  ),
  'cluster.expectedPeers': effect(
    { cluster: { expectedPeers: 3 } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: dead } },
    }),
  ),
  'cluster.commandTimeout': effect(
    { cluster: { commandTimeout: 300 } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: silent.port } },
    }),
  ),
  'cluster.kvserver.host': effect(
    { cluster: { kvserver: { host: 'localhost' } } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: dead } },
    }),
  ),
  'cluster.kvserver.port': effect(
    { cluster: { kvserver: { port: E2E_REDIS.port } } },
    (c) => clusterDegraded(c),
    () => ({ cluster: { enabled: true, kvserver: { port: dead } } }),
    'redis',
  ),
  'cluster.kvserver.password': effect(
    { cluster: { kvserver: { password: 'cluster-password-sent-at-connect' } } },
    async (c) => {
      resp.received = '';
      await clusterDegraded(configWith(c, { cluster: { kvserver: { port: resp.port } } }));
      return resp.received.includes('cluster-password-sent-at-connect');
    },
    { cluster: { enabled: true } },
  ),
  'cluster.kvserver.db': effect(
    { cluster: { kvserver: { db: 5 } } },
    async (c) => clusterKeys(c, [REDIS_CLUSTER_A]),
    { cluster: { enabled: true, kvserver: { ...E2E_REDIS, keyPrefix: REDIS_CLUSTER_A } } },
    'redis',
  ),
  'cluster.kvserver.keyPrefix': effect(
    { cluster: { kvserver: { keyPrefix: REDIS_CLUSTER_C } } },
    async (c) => clusterKeys(c, [REDIS_CLUSTER_B, REDIS_CLUSTER_C]),
    { cluster: { enabled: true, kvserver: { ...E2E_REDIS, keyPrefix: REDIS_CLUSTER_B } } },
    'redis',
  ),

  'correlation.weights': effect(
    { correlation: { weights: { feed_probe: 0.9 } } },
    async (c) => (await verdict(c)).contributions,
  ),
  'correlation.recencyHalfLifeDays': effect(
    { correlation: { recencyHalfLifeDays: 30 } },
    async (c) => (await verdict(c, 0.8, { lastSeen: new Date(START - 200 * 86_400_000).toISOString() })).contributions,
  ),
};

/** The `quotaLow` events after `lookups` scouts of distinct addresses. */
async function quotaLowEvents(config: ThreatConfig, lookups: number) {
  const { client } = h.client(config, { clock: new ManualClock(START) });
  const events: unknown[] = [];
  client.on('quotaLow', (event) => events.push(event));
  for (let i = 1; i <= lookups; i++) await client.scout(`198.51.100.${100 + i}`);
  return events;
}

/** The `clusterDegraded` events of a client that starts and stops (its Redis unreachable or silent). */
async function clusterDegraded(config: ThreatConfig) {
  const { client } = h.client(config);
  const events: unknown[] = [];
  client.on('clusterDegraded', (event) =>
    events.push({ ...event, reason: event.reason.replace(/:\d{4,5}\b/g, ':PORT') }),
  );
  await client.start();
  await client.stop();
  return events;
}

/** Which of `prefixes` hold keys in databases 0 and 5 after a cluster client started and stopped (then removed). */
async function clusterKeys(config: ThreatConfig, prefixes: string[]): Promise<Record<string, string[]>> {
  const { client } = h.client(config);
  await client.start();
  await client.stop();
  return removeKeys(prefixes);
}

/** Which of `prefixes` hold keys in databases 0 and 5 after a scout through the Redis cache (then removed). */
async function redisKeys(config: ThreatConfig, prefixes: string[]): Promise<Record<string, string[]>> {
  const { client } = h.client(config);
  await client.scout(IP);
  await client.stop();
  return removeKeys(prefixes);
}

/** Which of `prefixes` hold keys in databases 0 and 5 (the keys are then removed). */
async function removeKeys(prefixes: string[]): Promise<Record<string, string[]>> {
  const { createClient } = await import('redis');
  const out: Record<string, string[]> = {};
  for (const database of [0, 5]) {
    const admin = createClient({ socket: { ...E2E_REDIS, reconnectStrategy: false }, database });
    await admin.connect();
    out[database] = [];
    for (const prefix of prefixes) {
      const keys: string[] = [];
      for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
      if (keys.length > 0) {
        out[database].push(prefix);
        await admin.unlink(keys);
      }
    }
    await admin.close();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The checks.

const PATHS = optionPaths(ThreatConfigSchema);
const REPO = new URL('../../../../', import.meta.url);

/** A configuration with `value` at a dotted `path` (no wildcards). */
function at(path: string, value: unknown): object {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as object;
}

function valueAt(object: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], object);
}

async function run(path: string, check: Check): Promise<void> {
  switch (check.kind) {
    case 'effect': {
      const before = await check.observe(configWith(BASE, resolve(check.without)));
      const after = await check.observe(configWith(BASE, resolve(check.without), resolve(check.with)));
      expect(after, `${path} made no difference: both observations were ${JSON.stringify(before)}`).not.toEqual(before);
      return;
    }
    case 'only': {
      expect(() => parseConfig(configWith(BASE, resolve(check.with)))).toThrow(
        new RegExp(`^Configuration invalid: ${path.replace(/[.[\]]/g, '\\$&')}: `),
      );
      expect(() => parseConfig(configWith(BASE, at(path, valueAt(parseConfig(BASE), path))))).not.toThrow();
      return;
    }
    case 'elsewhere': {
      const file = new URL(check.file, REPO);
      expect(existsSync(file), `${check.file} should hold the test of ${path}`).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const mention of check.mentions) expect(text, `${check.file} should test ${path}`).toContain(mention);
      return;
    }
  }
}

describe('every option of the configuration schema', () => {
  it('has exactly one check per option the schema accepts (an option added without one fails here)', () => {
    expect(PATHS.length).toBeGreaterThan(100);
    expect(PATHS.filter((path) => !(path in CHECKS))).toEqual([]);
    expect(Object.keys(CHECKS).filter((path) => !PATHS.includes(path))).toEqual([]);
  });

  for (const path of PATHS) {
    const check = CHECKS[path];
    if (!check || (check.kind === 'effect' && check.needs === 'redis')) continue;
    const what = {
      effect: 'changes what the client does',
      only: 'has one value, any other refused',
      elsewhere: `takes effect in ${check.kind === 'elsewhere' ? check.file : ''}`,
    }[check.kind];
    it(`${path} ${what}`, () => run(path, check), 30_000);
  }
});

describeWithRedis('every option of the configuration schema, against the e2e Redis', () => {
  for (const path of PATHS) {
    const check = CHECKS[path];
    if (check?.kind === 'effect' && check.needs === 'redis') {
      it(`${path} changes what the client does`, () => run(path, check), 30_000);
    }
  }
});
