/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Field names (lower case, separators removed) whose value is always secret. */
const SECRET_NAMES = new Set([
  'key',
  'keys',
  'apikey',
  'apikeys',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'token',
  'secret',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'credentials',
  'auth',
  'authkey',
]);

/**
 * Name endings that make a field secret wherever it sits: `x-otx-api-key`, `clientSecret`, `refresh_token`,
 * `vaultPassword`. `tokens` (a bucket's count) and `cacheKey` (an indicator) are not secret, so neither a plural
 * nor a bare `key` ending is listed.
 */
const SECRET_ENDINGS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'apikeys',
  'authorization',
  'privatekey',
  'accesskey',
  'secretkey',
  'authkey',
  'encryptionkey',
  'masterkey',
  'credentials',
  'cookie',
];

const NAME_SEPARATORS = /[^a-z0-9]/g;

/**
 * Whether a field of this name holds a secret (an API key, a password, a token, an Authorization or Cookie
 * header), compared without case or separators: `apiKey`, `api_key` and `X-API-Key` are the same name.
 */
export function isSecretField(name: string): boolean {
  const normalised = name.toLowerCase().replace(NAME_SEPARATORS, '');
  if (SECRET_NAMES.has(normalised)) return true;
  for (const ending of SECRET_ENDINGS) if (normalised.endsWith(ending)) return true;
  return false;
}

const secretNames = new Map<string, boolean>();

/** {@link isSecretField}, remembered: log lines repeat the same few field names. */
function isSecretFieldCached(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = isSecretField(name);
    // Bounded: field names built from data (a map keyed by indicator, say) must not grow it without end.
    if (secretNames.size < 10_000) secretNames.set(name, secret);
  }
  return secret;
}

/**
 * Whether `value` may hold a secret: a field with a secret name, or a string that {@link redactText} would change,
 * at any depth. Anything it cannot see through cheaply (an Error, a URL, a request, any class instance, a depth
 * past 8) counts as "may", so a false answer is a promise: `redactSecrets` would change nothing. It lets a logger
 * skip the full redaction of lines that cannot need it.
 */
export function mayHoldSecrets(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return MAY_HOLD_SECRET.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (depth > 8) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (mayHoldSecrets(item, depth + 1)) return true;
    return false;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return true;
  for (const key in value) {
    if (isSecretFieldCached(key) || mayHoldSecrets((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Query parameters whose value is secret: `?key=`, `&apikey=`, `access_token=`, `X-Amz-Signature=`... */
const SECRET_QUERY =
  /([?&;][a-z0-9_.-]*(?:key|token|password|passwd|secret|signature|credential|auth)[a-z0-9_.-]*=)(?!\[redacted\])[^&#\s"'<>]+/gi;
/** Credentials in a URL: `https://user:password@host`. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>]*:)[^\s/?#@"'<>]+@/gi;
/** HTTP credentials in text: `Bearer eyJ...`, `Basic dXNlcjpwYXNz`. */
const AUTH_SCHEME = /\b(bearer|basic)(\s+)[a-z0-9._~+/-]+=*/gi;
/** `name: value` or `name=value` pairs whose name is secret, as in a header dump or a connection string. */
const SECRET_PAIR =
  /\b((?:proxy-)?authorization|x-[a-z0-9-]*api-?key|api[-_]?key|apikey|auth-key|password|passwd|secret|token)(["']?\s*[:=]\s*)(?!\[redacted\])("[^"]*"|'[^']*'|(?:(?:bearer|basic)\s+)?[^\s,;&"'}\]]+)/gi;
/**
 * A cheap first test: text without any of these needs no scrubbing. Spelt with character classes rather than the
 * `i` flag: V8 runs it about twice as fast, and it runs on every string of every line.
 */
const MAY_HOLD_SECRET =
  /[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]|[Pp][Aa][Ss][Ss]|[Pp][Ww][Dd]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Aa][Uu][Tt][Hh]|[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]|[Cc][Oo][Oo][Kk][Ii][Ee]|[Ss][Ii][Gg][Nn][Aa][Tt][Uu][Rr][Ee]|[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll]|@/;

/**
 * Scrubs secrets out of free text (a message, an error message or stack, a URL): credentials in URLs, secret query
 * parameters, `Bearer`/`Basic` credentials and `password=...`-style pairs. Text without any is returned as it is.
 *
 * @example
 * ```ts
 * redactText('GET https://api.example/v1?apikey=abc123 failed'); // 'GET https://api.example/v1?apikey=[redacted] failed'
 * ```
 */
export function redactText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  return text
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SECRET_PAIR, `$1$2${REDACTED}`)
    .replace(SECRET_QUERY, `$1${REDACTED}`)
    .replace(AUTH_SCHEME, `$1$2${REDACTED}`);
}

/** How deep {@link redactSecrets} looks; deeper values are replaced rather than left unchecked. */
const MAX_REDACTION_DEPTH = 32;

/**
 * A copy of `value` with every secret removed, at any depth: the value of each field whose name is secret (see
 * {@link isSecretField}) becomes `[redacted]`, and every string is scrubbed with {@link redactText}. Errors become
 * plain `{type, message, stack, ...}` objects, cycles `[Circular]`, and anything deeper than
 * {@link MAX_REDACTION_DEPTH} `[too deep]`. Parts with nothing to redact are shared with the input, not copied.
 *
 * @example
 * ```ts
 * redactSecrets({ headers: { 'X-OTX-API-KEY': 'abc', accept: 'application/json' } });
 * // { headers: { 'X-OTX-API-KEY': '[redacted]', accept: 'application/json' } }
 * ```
 */
export function redactSecrets<T>(value: T): T {
  return redactValue(value, 0, []) as T;
}

function redactValue(value: unknown, depth: number, ancestors: object[]): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.includes(value)) return '[Circular]';
  if (depth >= MAX_REDACTION_DEPTH) return '[too deep]';
  ancestors.push(value);
  try {
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        const redacted = redactValue(item, depth + 1, ancestors);
        if (redacted !== item) {
          copy ??= value.slice();
          copy[i] = redacted;
        }
      }
      return copy ?? value;
    }
    if (value instanceof Error) return redactValue(serialiseError(value), depth, ancestors);
    // What JSON.stringify would write for a URL, a Date or a Buffer: the secret may be in that form.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const json: unknown = toJSON.call(value);
      return json === value ? value : redactValue(json, depth, ancestors);
    }
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      const redacted =
        isSecretFieldCached(key) && item !== undefined && item !== null && item !== REDACTED
          ? REDACTED
          : redactValue(item, depth + 1, ancestors);
      if (redacted !== item) {
        copy ??= { ...value };
        copy[key] = redacted;
      }
    }
    return copy ?? value;
  } finally {
    ancestors.pop();
  }
}

/** An Error as pino's serializer writes one: type, message, stack, its own fields and its cause. */
function serialiseError(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: error.constructor?.name ?? error.name,
    message: error.message,
    stack: error.stack,
  };
  for (const key of Object.keys(error)) out[key] = (error as unknown as Record<string, unknown>)[key];
  if (error.cause !== undefined) out.cause = error.cause;
  if (error instanceof AggregateError) out.errors = error.errors;
  return out;
}

/**
 * One JSON log line with its secrets removed: the line is parsed, {@link redactSecrets} applied and the result
 * written back, only when a cheap scan finds something that may be a secret; other lines come back as they are.
 */
export function redactLogLine(line: string): string {
  if (!MAY_HOLD_SECRET.test(line)) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // Not JSON (a foreign logger's text): scrub it as text.
    return redactText(line);
  }
  const redacted = redactSecrets(parsed);
  return redacted === parsed ? line : JSON.stringify(redacted);
}
