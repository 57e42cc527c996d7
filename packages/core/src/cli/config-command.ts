import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ThreatClient } from '../client/threat-client.js';
import type { Environment } from '../config/environment.js';
import { feedReadiness, redactConfig } from '../config/feed-readiness.js';
import { CONFIG_FILE_NAMES, loadConfig } from '../config/load-config.js';
import type { ThreatConfig } from '../config/schema.js';
import { ThreatlibError } from '../errors/threatlib-error.js';
import { BUILTIN_FEED_IDS } from '../feeds/feed-ids.js';
import { silentLogger } from '../logging/logger.js';

/** Exit codes of `threatlib-config`. */
const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** The configuration used when there is no config file: every built-in feed, keys only from the environment. */
const EMBEDDED_DEFAULTS: ThreatConfig = { sources: [...BUILTIN_FEED_IDS] };

const USAGE = `Usage: threatlib-config <show|check> [--config FILE] [--profile NAME] [--json]

  show    print the effective configuration (secrets masked), its warnings and which feeds are usable
  check   validate only; print warnings

Without --config, threatlib.config.js in the current directory is used if present, else the embedded defaults
(every built-in feed; keys from THREATLIB_FEED_<FEED>_API_KEY).

Exit codes: 0 valid, 1 invalid configuration, 2 usage error.`;

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Environment;
  cwd: string;
}

/** Runs `threatlib-config` with `argv` (without the node and script paths) and returns the exit code. */
export async function runConfigCommand(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${USAGE}\n`);
    return EXIT.ok;
  }
  const command = positionals[0];
  if (command !== 'show' && command !== 'check') {
    io.err(`${command ? `Unknown command "${command}".` : 'No command given.'}\n\n${USAGE}\n`);
    return EXIT.usage;
  }

  const file = values.config ?? CONFIG_FILE_NAMES.find((name) => existsSync(resolve(io.cwd, name)));
  let client: ThreatClient;
  let source: string;
  try {
    if (file) {
      const config = await loadConfig({
        file,
        cwd: io.cwd,
        env: io.env,
        ...(values.profile ? { profile: values.profile } : {}),
      });
      client = new ThreatClient(config, { env: io.env, logger: silentLogger });
      source = `${resolve(io.cwd, file)} (profile "${values.profile ?? io.env.THREATLIB_PROFILE ?? 'default'}")`;
    } else {
      if (values.profile) {
        io.err(
          `--profile ${values.profile} needs a config file, and there is no ${CONFIG_FILE_NAMES[0]} in ${io.cwd}\n`,
        );
        return EXIT.usage;
      }
      client = new ThreatClient(EMBEDDED_DEFAULTS, { env: io.env, logger: silentLogger });
      source = 'embedded defaults';
    }
  } catch (error) {
    if (!ThreatlibError.isInstance(error)) throw error;
    io.err(`${error.message}\n`);
    return EXIT.invalid;
  }

  const readiness = feedReadiness(client.config);
  if (values.json) {
    const report = {
      source,
      valid: true,
      warnings: client.warnings,
      feeds: readiness,
      ...(command === 'show' ? { config: redactConfig(client.config) } : {}),
    };
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT.ok;
  }

  const lines: string[] = [`Configuration: ${source}: valid`];
  if (command === 'show') lines.push('', JSON.stringify(redactConfig(client.config), null, 2));
  lines.push('', 'Feeds:');
  const width = Math.max(...readiness.map((r) => r.feed.length));
  for (const feed of readiness) {
    lines.push(`  ${feed.feed.padEnd(width)}  ${feed.status.padEnd(14)}  ${feed.name}: ${feed.reason}`);
  }
  lines.push('', client.warnings.length === 0 ? 'Warnings: none' : 'Warnings:');
  for (const warning of client.warnings) lines.push(`  ${warning.path}: ${warning.message}`);
  io.out(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      profile: { type: 'string', short: 'p' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
