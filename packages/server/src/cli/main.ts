import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type CorrelationResult, ThreatClient, type ThreatConfig, ThreatlibError } from '@threatlib/core';
import { apiKeyVariable, CONFIG_FILE_NAMES, loadConfig, runConfigCommand, streamScouts } from '@threatlib/core/cli';
import cliProgress from 'cli-progress';
import { APIServer } from '../api-server.js';
import { hashPassword } from '../auth/password-hash.js';
import { embeddedConfig } from './embedded-config.js';
import { readIndicatorLines, shownLine, unreadableListFile } from './indicator-lines.js';
import { runWorker } from './worker.js';

/** Exit codes of `threatlib`. */
export const EXIT = {
  /** Done; no indicator is a threat. */
  ok: 0,
  /** Done; at least one indicator is a threat. */
  threat: 1,
  /** Bad command line. */
  usage: 2,
  /** The configuration (file, profile or environment) is invalid. */
  config: 3,
  /** Done, but some inputs were invalid or some feeds failed: the answer is incomplete. */
  incomplete: 4,
  /** `worker`: a server it needs (the queue broker) could not be reached. */
  unavailable: 5,
} as const;

const USAGE = `Usage: threatlib <command> [options]

Commands:
  serve [--config FILE] [--profile NAME] [--port N] [--host H]
        Start the REST API (under /api/v1) and TAXII 2.1 (discovery at /taxii2/, the same token). Without a
        config file: embedded defaults (no keys, no network, the aggressive strategy). --port: the port to listen on
        (default 8080; 0 picks a free one); --host: the interface (default 127.0.0.1, loopback only).
        The bearer token is THREATLIB_API_TOKEN, or a random one printed once at start.
  scan <indicator...> [--file list.txt] [--format table|json] [--config FILE] [--profile NAME]
        Scan indicators (a progress bar on stderr when reading a file).
  correlate <indicator> [--format table|json] [--config FILE] [--profile NAME]
        The full correlation of one indicator.
  worker [--config FILE] [--profile NAME]
        Consume scan requests from integrations.messageQueue (RabbitMQ or Kafka) until SIGINT/SIGTERM.
        Run several: with cluster.enabled they share every feed's quota, lookups and cache through Redis.
  config check|show [--config FILE] [--profile NAME]
        Validate the configuration and list usable feeds.
  hash-password
        Read a password on stdin and print its hash for security.authentication.users.

Exit codes: 0 ok (no threat), 1 threat found, 2 usage error, 3 invalid configuration,
            4 incomplete (invalid inputs or failed feeds), 5 the worker's broker unreachable.`;

/** What the CLI reads and writes; the real process in `bin/threatlib.js`, buffers in tests. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin?: NodeJS.ReadableStream;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); `serve` waits on it. */
  stopSignal?: Promise<void>;
  /**
   * Whether log lines go to a terminal (stderr is a TTY): then a configuration that chooses no `logging.format` and
   * no transports logs `text`, one line for people, instead of JSON.
   */
  terminal?: boolean;
}

/** Runs `threatlib` with `argv` (without node and script) and resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, io);
      case 'scan':
        return await scan(rest, io, false);
      case 'correlate':
        return await scan(rest, io, true);
      case 'worker':
        return await worker(rest, io);
      case 'config': {
        const code = await runConfigCommand(rest, io);
        return code === 1 ? EXIT.config : code;
      }
      case 'hash-password':
        return await hashFromStdin(io);
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.out(`${USAGE}\n`);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        io.err(`Unknown command "${command}".\n\n${USAGE}\n`);
        return EXIT.usage;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    if (
      ThreatlibError.isInstance(error) &&
      (error.code === 'CONFIGURATION_INVALID' || error.code === 'LIST_LOAD_FAILED')
    ) {
      io.err(`${error.message}\n`);
      return EXIT.config;
    }
    throw error;
  }
}

class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

function options(argv: string[]): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        profile: { type: 'string', short: 'p' },
        port: { type: 'string' },
        host: { type: 'string' },
        file: { type: 'string', short: 'f' },
        format: { type: 'string' },
      },
    });
    return { values: values as Values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function makeClient(values: Values, io: CliIo): Promise<ThreatClient> {
  const file =
    typeof values.config === 'string'
      ? values.config
      : CONFIG_FILE_NAMES.find((name) => existsSync(resolve(io.cwd, name)));
  let config: ThreatConfig;
  if (file) {
    config = await loadConfig({
      file,
      cwd: io.cwd,
      env: io.env,
      ...(typeof values.profile === 'string' ? { profile: values.profile } : {}),
    });
  } else {
    if (typeof values.profile === 'string')
      throw new UsageError(`--profile needs a config file; there is no ${CONFIG_FILE_NAMES[0]} in ${io.cwd}`);
    config = embeddedConfig(io.env);
  }
  return new ThreatClient(forTerminal(config, io.terminal === true), { env: io.env });
}

/**
 * `config` with `logging.format: 'text'` when its lines go to a terminal and it chooses neither a format nor a
 * transport (a file or a collector keeps the JSON it would get anywhere else).
 */
function forTerminal(config: ThreatConfig, terminal: boolean): ThreatConfig {
  const logging = config.logging ?? {};
  const transports = logging.transports;
  const hasTransports = Array.isArray(transports) ? transports.length > 0 : transports !== undefined;
  if (!terminal || logging.format !== undefined || hasTransports || logging.stderr === false) return config;
  return { ...config, logging: { ...logging, format: 'text' } };
}

async function serve(argv: string[], io: CliIo): Promise<number> {
  const { values } = options(argv);
  const port = values.port === undefined ? 8080 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be 0..65535, got ${String(values.port)}`);
  const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
  const embedded = typeof values.config !== 'string' && !CONFIG_FILE_NAMES.some((n) => existsSync(resolve(io.cwd, n)));
  const client = await makeClient(values, io);
  const fromEnv = io.env.THREATLIB_API_TOKEN?.trim();
  const token = fromEnv || randomBytes(24).toString('base64url');
  const server = new APIServer({ port, host, authentication: { type: 'bearer', tokens: [token] } });
  server.mount('/api/v1', client);
  // The same client over TAXII 2.1, with the same token: its concluded threats to read, an inbox it lists.
  server.mountTaxii('/taxii2', client);
  let address: string;
  try {
    address = await server.start();
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      io.err(`${unavailable(code, host, port)}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  io.out(startupLines({ address, token: fromEnv ? undefined : token, client, embedded }));
  await (io.stopSignal ?? new Promise<void>(() => {}));
  await server.stop();
  return EXIT.ok;
}

/** What `serve` says when it cannot listen: which address, why, and how to choose another. */
function unavailable(code: string, host: string, port: number): string {
  const why =
    code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use (another threatlib serve, or another program)`
      : code === 'EACCES'
        ? `port ${port} on ${host} needs privileges this process does not have (ports below 1024 usually do)`
        : `${host} is not an address of this machine`;
  return `threatlib serve: cannot listen: ${why}.\nChoose another with --port N (e.g. threatlib serve --port ${port === 8080 ? 8081 : 8080}, or ./dev start --port ${port === 8080 ? 8081 : 8080}); --port 0 picks a free one${code === 'EADDRNOTAVAIL' ? ', --host H another interface' : ''}.`;
}

/** The lines `serve` prints once it listens: each thing a person needs on its own line. */
function startupLines(options: {
  address: string;
  token: string | undefined;
  client: ThreatClient;
  embedded: boolean;
}): string {
  const { address, token, client, embedded } = options;
  const strategy = client.config.strategy;
  const unconfigured = client
    .feedStatus()
    .filter((feed) => !feed.configured)
    .map((feed) => feed.feed);
  const lines = [
    `threatlib API listening on ${address}${embedded ? ' (embedded defaults: no config file, no keys, no network)' : ''}`,
    `  app:      ${address}/app/   (the dashboard: sign in with the token below)`,
    `  routes:   ${address}/api/v1`,
    `  docs:     ${address}/docs`,
    `  taxii:    ${address}/taxii2/   (TAXII 2.1 discovery, the same token)`,
    token
      ? `  token:    ${token}   (shown once; set THREATLIB_API_TOKEN to choose your own)`
      : '  token:    from THREATLIB_API_TOKEN',
    `  strategy: ${strategy}${strategyNote(strategy, embedded)}`,
  ];
  if (unconfigured.length > 0) {
    lines.push(
      `  feeds:    ${unconfigured.join(', ')} not configured (set ${unconfigured.map(apiKeyVariable).join(', ')})`,
    );
  }
  lines.push('Stop with Ctrl-C.');
  return `${lines.join('\n')}\n`;
}

function strategyNote(strategy: string, embedded: boolean): string {
  if (strategy === 'defensive') return ' (the library default)';
  const why =
    embedded && strategy === 'aggressive'
      ? ': one source is enough, so the one offline list can conclude a threat'
      : '';
  return ` (the library's default is defensive)${why}`;
}

async function worker(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = options(argv);
  if (positionals.length > 0) throw new UsageError(`worker takes no indicators, got ${positionals.length}`);
  const outcome = await runWorker(await makeClient(values, io), io);
  return outcome === 'stopped' ? EXIT.ok : outcome === 'not-configured' ? EXIT.config : EXIT.unavailable;
}

async function scan(argv: string[], io: CliIo, single: boolean): Promise<number> {
  const { values, positionals } = options(argv);
  const format = values.format ?? 'table';
  if (format !== 'table' && format !== 'json')
    throw new UsageError(`--format must be table or json, got ${String(format)}`);
  if (single && positionals.length !== 1) throw new UsageError('correlate takes exactly one indicator');
  if (!single && positionals.length === 0 && values.file === undefined)
    throw new UsageError('scan needs indicators or --file');
  const file = typeof values.file === 'string' ? resolve(io.cwd, values.file) : undefined;
  const unreadable = file === undefined ? undefined : await unreadableListFile(file);
  if (unreadable) throw new UsageError(`--file ${String(values.file)}: ${unreadable}`);
  const client = await makeClient(values, io);
  const total = file ? await countLines(file) : 0;
  const bar =
    file && !single
      ? new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: 'scanning [{bar}] {value}/{total} indicators, {threats} threats',
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(total, 0, { threats: 0 });
  let threats = 0;
  let incomplete = false;
  const inputs = file ? readLines(file, positionals) : positionals;
  try {
    for await (const item of streamScouts(inputs, (input) => client.correlate(input), { window: client.concurrency })) {
      if (item.ok) {
        const c = item.result;
        if (c.isThreat) threats += 1;
        if (c.failures.length > 0) incomplete = true;
        io.out(format === 'json' ? `${JSON.stringify(single ? c : summary(c))}\n` : single ? detail(c) : `${row(c)}\n`);
      } else {
        incomplete = true;
        io.out(
          format === 'json'
            ? `${JSON.stringify({ input: item.input, error: item.error })}\n`
            : `${shownLine(item.input)}\tinvalid\t${item.error.message}\n`,
        );
      }
      bar?.increment(1, { threats });
    }
  } finally {
    bar?.stop();
    await client.stop();
  }
  return threats > 0 ? EXIT.threat : incomplete ? EXIT.incomplete : EXIT.ok;
}

function summary(c: CorrelationResult) {
  return {
    indicator: c.indicator,
    type: c.type,
    verdict: c.verdict,
    isThreat: c.isThreat,
    riskScore: c.riskScore,
    confidence: c.confidence,
    consensus: c.consensus,
    evidence: c.results.filter((r) => r.status === 'ok').flatMap((r) => r.evidence.map((e) => `${r.feed}: ${e}`)),
    failures: c.failures,
  };
}

function row(c: CorrelationResult): string {
  const evidence = c.results.find((r) => r.status === 'ok' && r.verdict !== 'unknown')?.evidence[0] ?? '';
  return [c.indicator, c.verdict, `risk ${c.riskScore}`, `confidence ${c.confidence}`, evidence].join('\t');
}

function detail(c: CorrelationResult): string {
  const lines = [
    `${c.indicator} (${c.type}): ${c.verdict}${c.isThreat ? ' (threat)' : ''}, risk ${c.riskScore}/10, confidence ${c.confidence}, consensus ${c.consensus}, strategy ${c.strategy}`,
  ];
  for (const r of c.results)
    lines.push(`  ${r.feed.padEnd(22)} ${r.status.padEnd(15)} ${r.verdict.padEnd(10)} ${r.evidence[0] ?? ''}`);
  return `${lines.join('\n')}\n`;
}

async function* readLines(file: string, first: string[]): AsyncGenerator<string> {
  yield* first;
  yield* readIndicatorLines(file);
}

async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const _ of readLines(file, [])) n += 1;
  return n;
}

async function hashFromStdin(io: CliIo): Promise<number> {
  const input = io.stdin ?? process.stdin;
  let text = '';
  for await (const chunk of input) text += chunk.toString();
  const password = text.replace(/\r?\n$/, '');
  if (password === '') {
    io.err('hash-password reads the password on stdin; it was empty\n');
    return EXIT.usage;
  }
  io.out(`${await hashPassword(password)}\n`);
  return EXIT.ok;
}
