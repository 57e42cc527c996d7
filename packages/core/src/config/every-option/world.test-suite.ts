// The world every-option.test.ts observes options in: the harness making clients, the base configuration, the local
// servers, and the observations several sections of the configuration share.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { E2E_REDIS } from '../../cache/redis-e2e.test-suite.js';
import { ThreatClient } from '../../client/threat-client.js';
import { silentLogger } from '../../logging/logger.js';
import { ManualClock } from '../../scheduler/clock.js';
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
} from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';

export const h = new Harness();
export const IP2 = '198.51.100.24';
export const IP3 = '198.51.100.25';
export const PRIVATE_IP = '10.1.2.3';
export const START = Date.parse('2026-06-01T00:00:00Z');

const BASE_LIST = h.path('base-list.txt');
writeFileSync(BASE_LIST, '203.0.113.250\n');

/** Under every check: no feed but the probes (and a list, since some source is required), no HTTPS rule. */
export const BASE: ThreatConfig = {
  sources: [],
  lists: [{ name: 'base', file: BASE_LIST }],
  security: { enforceHttps: false },
  performance: { retryAttempts: 0 },
  caching: { enabled: false },
};

export const hook = new HttpRecorder();
export const tokens = new HttpRecorder();
export const tls = new SelfSignedServer();
export const syslog = new SyslogReceivers();
export const smtp = new SmtpRecorder();
export const resp = new RespRecorder();
/** Accepts connections and never answers: a Redis that hangs. */
export const silent = new SilentServer();
export let dead: number;

/** Lets the client's pending promise callbacks and I/O run. */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** What the probes were asked, after one scout of `indicator`. */
export async function probeCalls(config: ThreatConfig, indicator = IP): Promise<ProbeFeed['calls']> {
  const { client, probe } = h.client(config);
  await client.scout(indicator);
  return probe.calls;
}

/** The status each source answered `indicator` with. */
export async function statuses(config: ThreatConfig, setup: (probe: ProbeFeed) => void = () => {}, indicator = IP) {
  const { client, probe } = h.client(config);
  setup(probe);
  const result = await client.scout(indicator);
  return Object.fromEntries(result.results.map((r) => [r.feed, r.status]));
}

/** What correlating `IP` concludes, both probes answering `verdict` with `score`. */
export async function verdict(config: ThreatConfig, score = 0.8, extra: Parameters<typeof answer>[2] = {}) {
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
export function limits(config: ThreatConfig, feed = 'feed_probe') {
  return h
    .client(config)
    .client.feedStatus()
    .find((s) => s.feed === feed)?.limits;
}

/** A probe that answers after `ms` of real time unless its request is aborted first (by a timeout). */
export function slowProbe(ms: number) {
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
export const failing =
  (status: Parameters<typeof failed>[0], error?: Parameters<typeof failed>[1]) => (probe: ProbeFeed) => {
    probe.answer = () => failed(status, error);
  };

/** How many times the probe was asked over scouts of `indicators`, the clock moving by `gapMs` before each. */
export async function lookupsOver(
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
export const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** A fresh, empty directory for one observation. */
export function freshDir(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A vault client made with `config`, and what `look` sees of it. */
export async function vaultSees<T>(
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

/** Events seen by the handlers the event checks configure. */
export const seen: string[] = [];
export const handler = (name: string) => () => {
  seen.push(name);
};

/** The events the handlers saw while `act` ran on a client made with `config`. */
export async function eventsSeen(
  config: ThreatConfig,
  act: (client: ThreatClient, probe: ProbeFeed) => Promise<unknown>,
): Promise<string[]> {
  seen.length = 0;
  const { client, probe } = h.client(config, { clock: new ManualClock(START) });
  await act(client, probe);
  await settle();
  return [...seen];
}

export function listFile(name: string, text: string): string {
  const file = h.path(name);
  writeFileSync(file, text);
  return file;
}

/** Which of `prefixes` hold keys in databases 0 and 5 (the keys are then removed). */
export async function removeKeys(prefixes: string[]): Promise<Record<string, string[]>> {
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

/** Anything the checks start before the first check and close after the last. */
interface Server {
  start(): Promise<unknown>;
  close(): Promise<unknown>;
}

/** Starts the local servers (and `more`), and finds a port nothing listens on. */
export async function startWorld(more: Server[]): Promise<void> {
  await Promise.all([hook, tokens, tls, syslog, smtp, resp, ...more, silent].map((server) => server.start()));
  dead = await deadPort();
  tokens.respond = () => ({
    status: 200,
    body: JSON.stringify({ access_token: 'probe-token', token_type: 'Bearer', expires_in: 300 }),
  });
}

/** Closes every client the checks made, then the local servers (and `more`). */
export async function closeWorld(more: Server[]): Promise<void> {
  await h.close();
  await Promise.all([hook, tokens, tls, syslog, smtp, resp, ...more, silent].map((server) => server.close()));
}
