// The checks of every-option.test.ts for `logging`: the logger, its filters and its file, webhook and syslog
// transports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { withCategory } from '../../logging/categories.js';
import { closeLogger, createLogger, logTransportStats } from '../../logging/create-logger.js';
import { ManualClock } from '../../scheduler/clock.js';
import { configWith, sleep, until } from '../option-checks.test-suite.js';
import { parseConfig } from '../parse-config.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, type Effect, effect, type Fragment } from './check.test-suite.js';
import { dead, filesIn, freshDir, h, hook, START, syslog } from './world.test-suite.js';

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

const FILE_LOGS = Object.fromEntries(
  ['type', 'filename', 'maxSize', 'maxFiles', 'compress', 'level', 'filter'].map((k) => [k, h.path(`logs-${k}`)]),
);

/** One check per option of `logging`. */
export const LOGGING_CHECKS: Record<string, Check> = {
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
};
