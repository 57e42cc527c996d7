import { ConfigurationError, type ConfigurationIssue } from '@threatlib/core';
import { durationSchema, parseSize, recordIssues, shownInput, suggestOption } from '@threatlib/core/integration';
import { z } from 'zod';

/** The longest rate-limit or failed-authentication window, and the longest block: a day. */
const DAY_MS = 86_400_000;

/** A whole number from `min` to `max`, refused with what it got (and the number a digits-only text stands for). */
const whole = (name: string, min: number, max = Number.MAX_SAFE_INTEGER, unit = '') => {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  const error = (issue: { input?: unknown }) => {
    const { input } = issue;
    const meant =
      typeof input === 'string' && /^\s*\d{1,15}\s*$/.test(input) ? ` (did you mean ${Number(input)}?)` : '';
    return `${name} is a whole number${unit}, ${range}; got ${shownInput(input)}${meant}`;
  };
  return z.int({ error }).min(min, { error }).max(max, { error });
};

/** `true` or `false`, refused with what it got. */
const flag = (name: string) =>
  z.boolean({ error: (issue) => `${name} is true or false; got ${shownInput(issue.input)}` });

/** A byte count; a size text such as `'1MB'` is refused with the bytes it stands for. */
const bytes = (name: string) => {
  const error = (issue: { input?: unknown }) => {
    const { input } = issue;
    let meant = '';
    if (typeof input === 'string') {
      try {
        meant = ` (did you mean ${parseSize(input, name)}?)`;
      } catch {
        // Not a size either: no hint.
      }
    }
    return `${name} is a whole number of bytes, 1 or more; got ${shownInput(input)}${meant}`;
  };
  return z.int({ error }).min(1, { error });
};

/** A window or block of the limits: 1 s to a day, in milliseconds. */
const limitWindow = (name: string) =>
  durationSchema({ name, unit: 'milliseconds', min: 1_000, max: DAY_MS, integer: true });

/** A timeout of the connection options: 100 ms or more (less is seconds given for milliseconds), 0 for off. */
const timeout = (name: string, zeroAllowed: boolean) =>
  durationSchema({ name, unit: 'milliseconds', min: 100, max: 3_600_000, integer: true, zeroAllowed });

/**
 * The server's own authentication, by shape: `{type: 'bearer', tokens}` or `{type: 'none'}`. Whether it is usable with
 * the mounted client's `security.authentication` is the `Authenticator`'s to say. A token is never quoted.
 */
const AuthenticationSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('bearer'),
      tokens: z.array(
        z.string({
          error: (issue) =>
            issue.input === undefined
              ? 'expected a token string, got undefined (is its environment variable set?)'
              : `expected a token (a string), got ${kindOf(issue.input)}`,
        }),
        {
          error: (issue) =>
            issue.input === undefined
              ? 'required: the list of accepted tokens'
              : `expected a list of tokens, got ${kindOf(issue.input)}`,
        },
      ),
    }),
    z.strictObject({ type: z.literal('none') }),
  ],
  {
    error: (issue) => {
      const type = (issue.input as { type?: unknown } | undefined)?.type;
      return issue.input === null || typeof issue.input !== 'object'
        ? `expected {type: "bearer", tokens: [...]} or {type: "none"}, got ${kindOf(issue.input)}`
        : `expected type "bearer" (with tokens) or "none", got ${shownInput(type)}`;
    },
  },
);

const WebhooksSchema = z.custom<{ readonly plugin: unknown }>(
  (value) =>
    typeof value === 'object' && value !== null && typeof (value as { plugin?: unknown }).plugin === 'function',
  {
    error: (issue) =>
      `expected a WebhookManager of @threatlib/webhooks (with a fastify plugin), got ${kindOf(issue.input)}`,
  },
);

/** The dashboard's `pwa` options (`dashboard: {pwa}`), as core's configuration documents them. */
const DashboardPwaSchema = z.strictObject({
  enabled: flag('enabled').optional(),
  cacheStrategy: z
    .enum(['cache-first', 'network-first'], {
      error: (issue) => `cacheStrategy is cache-first or network-first; got ${shownInput(issue.input)}`,
    })
    .optional(),
  offlineData: z
    .union([z.boolean(), z.int().min(0).max(100_000)], {
      error: (issue) =>
        `offlineData is true, false or a number of verdicts from 0 to 100000; got ${shownInput(issue.input)}`,
    })
    .optional(),
  syncOnReconnect: flag('syncOnReconnect').optional(),
});

const DashboardObjectSchema = z.strictObject({ pwa: DashboardPwaSchema.optional() });

/** `dashboard`: true, false or `{pwa}`; a wrong `pwa` option is named by its own path (`dashboard.pwa.cacheStrategy`). */
const DashboardSchema = z.unknown().superRefine((value, ctx) => {
  if (typeof value === 'boolean') return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: `dashboard is true, false or {pwa: {...}}; got ${shownInput(value)}` });
    return;
  }
  const parsed = DashboardObjectSchema.safeParse(value);
  for (const issue of parsed.error?.issues ?? []) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: issue.input });
  }
});

/**
 * Every option of `APIServer`, checked as the client's configuration is: a wrong type, a value out of range, a
 * duration in the wrong unit (`windowMs: 900`, `'15m'`) or an unknown key is refused, naming the option and what it
 * got. Defaults are the server's own, filled in by it (and `resolveConnectionOptions` checks the headers' timeout
 * against the request's, defaults included).
 */
const APIServerOptionsSchema = z.strictObject({
  port: whole('port', 0, 65_535).optional(),
  host: z
    .string({ error: (issue) => `host is an address or host name to listen on, got ${shownInput(issue.input)}` })
    .min(1, { error: 'host is an address or host name to listen on, got ""' })
    .max(253)
    .optional(),
  authentication: AuthenticationSchema.optional(),
  rateLimit: z
    .strictObject({
      windowMs: limitWindow('windowMs').optional(),
      max: whole('max', 1).optional(),
    })
    .optional(),
  authFailureLimit: z
    .strictObject({
      max: whole('max', 1).optional(),
      windowMs: limitWindow('windowMs').optional(),
      blockMs: limitWindow('blockMs').optional(),
    })
    .optional(),
  bodyLimit: bytes('bodyLimit').optional(),
  batchLimit: whole('batchLimit', 1).optional(),
  logRequests: flag('logRequests').optional(),
  jsonDepthLimit: whole('jsonDepthLimit', 1).optional(),
  alertPageBytes: bytes('alertPageBytes').optional(),
  healthCacheMs: durationSchema({
    name: 'healthCacheMs',
    unit: 'milliseconds',
    min: 0,
    max: DAY_MS,
    integer: true,
  }).optional(),
  protectProbes: flag('protectProbes').optional(),
  dashboard: DashboardSchema.optional(),
  webhooks: WebhooksSchema.optional(),
  headersTimeout: timeout('headersTimeout', true).optional(),
  requestTimeout: timeout('requestTimeout', true).optional(),
  keepAliveTimeout: timeout('keepAliveTimeout', false).optional(),
  connectionTimeout: timeout('connectionTimeout', true).optional(),
  maxConnectionsPerAddress: whole('maxConnectionsPerAddress', 0).optional(),
});

/**
 * Checks `APIServer`'s options (the values given, nothing filled in).
 *
 * @throws {ConfigurationError} `Configuration invalid: <option>: <what is wrong>; ...` naming every option that is
 *   wrong and what it got (never a token), and for an unknown key the option it was probably meant to be.
 */
export function checkAPIServerOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError([
      { path: '(root)', message: `expected APIServer's options (an object), got ${kindOf(options)}` },
    ]);
  }
  const result = APIServerOptionsSchema.safeParse(options);
  if (result.success) return;
  const issues: ConfigurationIssue[] = [];
  for (const issue of result.error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      issues.push(...recordIssues([issue]));
      continue;
    }
    const at = issue.path.map(String).join('.');
    for (const key of issue.keys) {
      // Core's suggestion, read from the schema: a sibling is named by its key (the path says where it is), an
      // option elsewhere by its full path (`blockMs` at the top: `authFailureLimit.blockMs`).
      const suggested = suggestOption(APIServerOptionsSchema, issue.path, key);
      const meant = at && suggested?.startsWith(`${at}.`) ? suggested.slice(at.length + 1) : suggested;
      issues.push({
        path: at ? `${at}.${key}` : key,
        message: `unknown option${meant === undefined ? '' : ` (did you mean ${meant}?)`}`,
      });
    }
  }
  throw new ConfigurationError(issues);
}

/** What a value is, without showing it (for tokens). */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
