// Chromium for the browser tests: where it is, how every test launches it, and its version. Used by core's browser
// project (packages/core/vitest.browser.config.ts, through vitest's playwright provider) and by the e2e tests that
// drive pages from Node (describe-with-chromium.ts). e2e/tools/chromium.sh installs it (Debian's chromium package).
import { spawnSync } from 'node:child_process';
import type { LaunchOptions } from 'playwright';

/** The Chromium binary: Debian's package, or the one THREATLIB_CHROMIUM names. */
export const CHROMIUM = process.env.THREATLIB_CHROMIUM || '/usr/bin/chromium';

/** The command that installs Chromium, for the messages of tests that need it. */
export const CHROMIUM_INSTALL = 'bash e2e/tools/chromium.sh';

/**
 * The flags of every launch. The tests run as root, where Chromium's sandbox cannot start (`--no-sandbox`); there is
 * no GPU (`--disable-gpu`). The machine's network is closed: without the rest, Chromium opens connections to Google's
 * hosts at every start (QUIC, first-run pages, component updates, sync, background fetches), which are refused many
 * at a time and fill the log. Playwright starts each browser on a new, empty profile in a temporary folder (the
 * `--user-data-dir` it passes itself) and deletes it when the browser closes.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What `chromium --version` prints (`Chromium 156.0.8078.108 ...`), or undefined when it is missing or fails. */
export function chromiumVersion(): string | undefined {
  const run = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) return undefined;
  return run.stdout.trim() || undefined;
}

/** Playwright's launch options for {@link CHROMIUM}: headless, with {@link CHROMIUM_ARGS}. */
export function chromiumLaunchOptions(): LaunchOptions {
  return { executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: [...CHROMIUM_ARGS] };
}

/** Why a test cannot run: Chromium is missing, and how to install it. */
export function chromiumMissing(): string {
  return `Chromium is missing at ${CHROMIUM} (install it with: ${CHROMIUM_INSTALL})`;
}

/**
 * The globalSetup of a browser project: prints the Chromium the tests run in (its version, binary and flags) at the
 * top of the test log, and stops the run when that binary does not start.
 */
export function setup(): void {
  const version = chromiumVersion();
  if (!version) throw new Error(`${chromiumMissing()}: \`${CHROMIUM} --version\` failed`);
  console.log(`chromium: ${version} (${CHROMIUM}, headless, ${CHROMIUM_ARGS.join(' ')})`);
}
