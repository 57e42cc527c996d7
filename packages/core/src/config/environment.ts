import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration-error.js';
import { BUILTIN_FEED_IDS } from '../feeds/feed-ids.js';
import { isPlainObject } from './merge-config.js';
import { STRATEGIES, type ThreatConfig } from './schema.js';

/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment variable that carries the API key of `feed` (`feed_otx` -> `THREATLIB_FEED_OTX_API_KEY`). */
export function apiKeyVariable(feed: string): string {
  return `THREATLIB_${feed.toUpperCase()}_API_KEY`;
}

/**
 * The variable that carries the OAuth 2.0 client secret of `security.authentication` (type `oauth2`): it fills
 * `clientSecret` when the configuration object gives none. A vault entry `oauth2_client_secret` comes first.
 */
export const OAUTH2_CLIENT_SECRET_VARIABLE = 'THREATLIB_OAUTH2_CLIENT_SECRET';

/** The process environment where there is one (Node.js), an empty one elsewhere (browsers). */
export function processEnvironment(): Environment {
  const proc = (globalThis as { process?: { env?: Environment } }).process;
  return proc?.env ?? {};
}

/** What {@link readEnvironment} found: the layer, and the malformed variables a layer above made unused. */
export interface EnvironmentLayer {
  layer: Partial<ThreatConfig>;
  /** Malformed variables whose option the layer above sets: not used, so not fatal (the client warns). */
  ignored: ConfigurationIssue[];
}

/** The option each variable that can be malformed sets. */
const VARIABLE_OPTIONS = {
  THREATLIB_STRATEGY: ['strategy'],
  THREATLIB_MAX_CONCURRENCY: ['performance', 'maxConcurrency'],
  THREATLIB_LOCK_TIMEOUT: ['security', 'lockTimeout'],
} as const;

/** The option each variable that can be malformed sets, as a path (`performance.maxConcurrency`). */
export const ENVIRONMENT_OPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(VARIABLE_OPTIONS).map(([name, path]) => [name, path.join('.')]),
);

/**
 * Reads threatlib's environment variables into a configuration layer. Empty variables count as unset.
 *
 * `THREATLIB_AUTO_LOCK` is true only for the exact text `true` (anything else turns auto-lock off);
 * `THREATLIB_OAUTH2_CLIENT_SECRET` fills `security.authentication.clientSecret` when `base` configures oauth2;
 * `THREATLIB_MAX_CONCURRENCY` and `THREATLIB_LOCK_TIMEOUT` must be whole numbers.
 *
 * @param base the layer below the environment; an API key variable keeps the `endpoint`, `timeout` and other
 *   options an object entry of `base.apiKeys` has, and replaces only its key.
 * @throws {ConfigurationError} naming each malformed variable.
 */
export function configFromEnvironment(env: Environment, base: ThreatConfig | object = {}): Partial<ThreatConfig> {
  return readEnvironment(env, base).layer;
}

/**
 * {@link configFromEnvironment}, knowing the layer that will be laid over the environment (the constructor's
 * object): a malformed variable whose option that layer sets is never used, so it is not fatal but returned in
 * `ignored`, for a warning. A malformed variable whose value would be used still throws.
 *
 * @throws {ConfigurationError} naming each malformed variable that would be used.
 */
export function readEnvironment(
  env: Environment,
  base: ThreatConfig | object = {},
  above: object = {},
): EnvironmentLayer {
  const issues: ConfigurationIssue[] = [];
  const ignored: ConfigurationIssue[] = [];
  const layer: Record<string, unknown> = {};
  const read = (name: string) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const malformed = (path: keyof typeof VARIABLE_OPTIONS, message: string) => {
    if (setIn(above, VARIABLE_OPTIONS[path])) ignored.push({ path, message });
    else issues.push({ path, message });
  };

  const strategy = read('THREATLIB_STRATEGY');
  if (strategy !== undefined) {
    if ((STRATEGIES as readonly string[]).includes(strategy)) layer.strategy = strategy;
    else malformed('THREATLIB_STRATEGY', `expected one of ${STRATEGIES.join(', ')}, got "${strategy}"`);
  }

  const concurrency = read('THREATLIB_MAX_CONCURRENCY');
  if (concurrency !== undefined) {
    const n = wholeNumber(concurrency);
    if (n === undefined) malformed('THREATLIB_MAX_CONCURRENCY', `expected a whole number, got "${concurrency}"`);
    else if (n < 1 || n > 50) malformed('THREATLIB_MAX_CONCURRENCY', `must be between 1 and 50, got ${n}`);
    else layer.performance = { maxConcurrency: n };
  }

  const security: Record<string, unknown> = {};
  const autoLock = read('THREATLIB_AUTO_LOCK');
  if (autoLock !== undefined) security.autoLock = autoLock === 'true';
  const lockTimeout = read('THREATLIB_LOCK_TIMEOUT');
  if (lockTimeout !== undefined) {
    const n = wholeNumber(lockTimeout);
    if (n === undefined || n < 1) {
      malformed('THREATLIB_LOCK_TIMEOUT', `expected a whole number of milliseconds above 0, got "${lockTimeout}"`);
    } else security.lockTimeout = n;
  }
  const clientSecret = read(OAUTH2_CLIENT_SECRET_VARIABLE);
  const authentication = (
    isPlainObject((base as { security?: unknown }).security)
      ? (base as { security: Record<string, unknown> }).security
      : {}
  ).authentication;
  // Only under an oauth2 authentication the layer below set up: the variable alone does not configure one.
  if (clientSecret !== undefined && isPlainObject(authentication) && authentication.type === 'oauth2') {
    security.authentication = { clientSecret };
  }
  if (Object.keys(security).length > 0) layer.security = security;

  const baseKeys = isPlainObject((base as { apiKeys?: unknown }).apiKeys)
    ? (base as { apiKeys: Record<string, unknown> }).apiKeys
    : {};
  const apiKeys: Record<string, unknown> = {};
  for (const feed of BUILTIN_FEED_IDS) {
    const key = read(apiKeyVariable(feed));
    if (key === undefined) continue;
    const existing = baseKeys[feed];
    apiKeys[feed] = isPlainObject(existing) ? { ...existing, key } : key;
  }
  if (Object.keys(apiKeys).length > 0) layer.apiKeys = apiKeys;

  if (issues.length > 0) throw new ConfigurationError(issues);
  return { layer: layer as Partial<ThreatConfig>, ignored };
}

/** Whether `config` gives a value (not `undefined`) at `path`. */
function setIn(config: object, path: readonly string[]): boolean {
  let value: unknown = config;
  for (const key of path) {
    if (!isPlainObject(value)) return false;
    value = value[key];
  }
  return value !== undefined;
}

function wholeNumber(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}
