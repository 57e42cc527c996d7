import { z } from 'zod';
import { EVENT_NAME } from './webhook-payload.js';

/** How far a `webhook-timestamp` may be from now, either way, before the request is refused (5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Largest request body read, in bytes (1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Deepest nesting of arrays and objects in a payload (the REST server's default too). */
export const DEFAULT_JSON_DEPTH_LIMIT = 32;
/** Most message ids remembered to answer a replay without running the handler again. */
export const DEFAULT_REPLAY_CACHE_SIZE = 100_000;
/** Where the webhook routes are served when `server.path` is not given. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks';
/**
 * How long a message received under the `github` scheme is remembered, in seconds (a day): GitHub signs no time, so
 * this is the only bound on replaying a captured request. GitHub's own redelivery (same body) within it is answered
 * without running the handler again when the first delivery succeeded.
 */
export const DEFAULT_REPLAY_WINDOW_SECONDS = 86_400;
/** Fewest bytes a signing secret may have: below 128 bits an HMAC key can be guessed. */
export const MIN_SECRET_BYTES = 16;

const WHSEC_PREFIX = 'whsec_';
/** A path segment `server.pathEvents` binds; never a name that would reach an object's prototype. */
const PATH_SEGMENT = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z0-9._~-]{1,100}$/;
const MAX_PATH_EVENTS = 100;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A signing secret: `whsec_<base64>` (a Standard Webhooks secret, its bytes base64-decoded) or any other string (its
 * UTF-8 bytes, what `standardwebhooks` calls `format: 'raw'`). Messages never quote the value.
 */
const secretSchema = z.string({ error: 'expected the shared secret as a string' }).superRefine((secret, context) => {
  if (secret.startsWith(WHSEC_PREFIX) && !BASE64.test(secret.slice(WHSEC_PREFIX.length))) {
    context.addIssue({ code: 'custom', message: 'a "whsec_" secret must be base64 after the prefix' });
    return;
  }
  const bytes = secretBytes(secret).byteLength;
  if (bytes < MIN_SECRET_BYTES) {
    context.addIssue({
      code: 'custom',
      message: `the secret has ${bytes} bytes; use at least ${MIN_SECRET_BYTES} (a "whsec_" secret counts its decoded bytes)`,
    });
  }
});

/**
 * The key bytes of a secret as {@link IncomingOptionsSchema} documents it: a `whsec_` secret base64-decoded, any
 * other string as UTF-8.
 */
export function secretBytes(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX)
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** Refuses an own `__proto__` key, which zod's `record` drops without a word (a binding silently lost). */
function refuseProtoKey(value: unknown, context: z.RefinementCtx): unknown {
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
    context.addIssue({ code: 'custom', path: ['__proto__'], message: `expected a path segment, not __proto__` });
  }
  return value;
}

/** A per-address limit: at most `max` within `windowMs` (`false` turns it off). */
function addressLimit(max: number, what: string) {
  return z
    .union(
      [
        z.literal(false),
        z.strictObject({
          max: z.int().min(1).max(1_000_000).default(max),
          windowMs: z.int().min(1_000).max(86_400_000).default(60_000),
        }),
      ],
      { error: `expected {max, windowMs} (${what} from one address within windowMs ms) or false` },
    )
    .prefault({});
}

/**
 * Where the manager's own server listens, the path its routes hang under, and what keeps one client from wearing it
 * down: deadlines, a cap on each address's connections, a request rate limit and a stricter one on failed
 * signatures.
 */
const serverSchema = z
  .strictObject({
    /** Port of the manager's own server (0 picks a free one). Without it, `start()` opens no server. */
    port: z
      .int({ error: 'expected a whole port number, 0 to 65535' })
      .min(0, { error: 'expected a port number, 0 to 65535' })
      .max(65_535, { error: 'expected a port number, 0 to 65535' })
      .optional(),
    /** Interface of the manager's own server (default 127.0.0.1: loopback until you say otherwise). */
    host: z.string().min(1).default('127.0.0.1'),
    /** Path of the webhook routes: `POST <path>` and `POST <path>/<eventName>` (default `/webhooks`). */
    path: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)+$/, { error: 'expected a path such as "/webhooks"' })
      .default(DEFAULT_WEBHOOK_PATH),
    /**
     * Sub-paths bound to events: `{'github-push': 'threat-update'}` makes `POST <path>/github-push` deliver
     * `threat-update`, whatever the request's headers say (an envelope's `type` must agree). With it, only the sub-paths
     * listed are served. Required to receive bare GitHub payloads: GitHub signs neither the path nor `X-GitHub-Event`.
     */
    pathEvents: z
      .preprocess(
        refuseProtoKey,
        z.record(
          z.string(),
          z.string().regex(EVENT_NAME, {
            error:
              'expected an event name: letters, digits, ".", "_", ":" and "-", at most 100, starting with a letter or digit',
          }),
          {
            error: (issue) =>
              issue.code === 'invalid_type' ? 'expected {"<path segment>": "<event name>"}' : undefined,
          },
        ),
      )
      .superRefine((events, context) => {
        const segments = Object.keys(events);
        if (segments.length > MAX_PATH_EVENTS) {
          context.addIssue({ code: 'custom', message: `at most ${MAX_PATH_EVENTS} paths; got ${segments.length}` });
        }
        for (const segment of segments.filter((key) => !PATH_SEGMENT.test(key))) {
          context.addIssue({
            code: 'custom',
            path: [segment],
            message:
              'expected a path segment: letters, digits, ".", "_", "~" and "-", at most 100 (not constructor or prototype)',
          });
        }
      })
      .optional(),
    /** Most ms a request (headers and body) may take to arrive on the manager's own server (default 30000). */
    requestTimeoutMs: z.int().min(1_000).max(600_000).default(30_000),
    /** Most ms the request line and headers may take (a connection sending nothing included); default 10000. */
    headersTimeoutMs: z.int().min(100).max(600_000).optional(),
    /** Most ms an idle keep-alive connection is kept between requests (default 5000). */
    keepAliveTimeoutMs: z.int().min(1).max(600_000).default(5_000),
    /** Most ms a connection may go without any traffic either way (default 120000). */
    connectionTimeoutMs: z.int().min(1_000).max(3_600_000).default(120_000),
    /**
     * Connections one address (IPv6: one /64) may hold open at once; more are closed as they arrive (default 64, `0`
     * lifts the cap). Behind a proxy every sender is the proxy: raise it, or cap at the proxy.
     */
    maxConnectionsPerAddress: z.int().min(0).max(1_000_000).default(64),
    /** Requests one address may send within `windowMs` (default 600 a minute); past it, 429 with `Retry-After`. */
    rateLimit: addressLimit(600, 'requests'),
    /**
     * Requests with a refused signature one address may send within `windowMs` (default 10 a minute); past it the
     * address gets 429 for every request, a signed one included, until the window ends.
     */
    failedSignatureLimit: addressLimit(10, 'refused signatures'),
  })
  .superRefine((server, context) => {
    if (server.headersTimeoutMs !== undefined && server.headersTimeoutMs > server.requestTimeoutMs) {
      context.addIssue({
        code: 'custom',
        path: ['headersTimeoutMs'],
        message: `must not exceed requestTimeoutMs (${server.requestTimeoutMs}): the headers are part of the request`,
      });
    }
  });

const authenticationSchema = z
  .strictObject({
    type: z.literal('hmac', { error: 'expected "hmac"' }),
    /**
     * The shared secret, or several (a rotation: a request signed with any is accepted). `whsec_<base64>` is a
     * Standard Webhooks secret; any other string is used as its UTF-8 bytes.
     */
    secret: z.union([secretSchema, z.array(secretSchema).min(1).max(10)], {
      error: 'expected the shared secret: a string, or an array of at most 10 while rotating',
    }),
    /**
     * `standard-webhooks` (default): `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
     * `id.timestamp.body`. `github`: `X-Hub-Signature-256: sha256=<hex>` over the body.
     */
    scheme: z.enum(['standard-webhooks', 'github']).default('standard-webhooks'),
    /** How many seconds a `webhook-timestamp` may be from now, either way (default 300). */
    toleranceSeconds: z.int().min(1).max(86_400).default(DEFAULT_TOLERANCE_SECONDS),
    /**
     * `github` only: how many seconds a message (known by a digest of its body) is remembered after it was received
     * (default 86400, at most 30 days): a replay within it runs nothing. A Standard Webhooks message is remembered while
     * its timestamp is within `toleranceSeconds`, after which its signature no longer verifies.
     */
    replayWindowSeconds: z.int().min(60).max(2_592_000).optional(),
  })
  .superRefine((authentication, context) => {
    if (authentication.replayWindowSeconds !== undefined && authentication.scheme !== 'github') {
      context.addIssue({
        code: 'custom',
        path: ['replayWindowSeconds'],
        message:
          'only for scheme "github": a Standard Webhooks message is remembered while its timestamp is within toleranceSeconds',
      });
    }
  });

const limitsSchema = z.strictObject({
  /** Largest request body, in bytes (default 1 MiB); a larger one gets 413 before it is read in full. */
  bodyBytes: z
    .int()
    .min(1)
    .max(100 * 1024 * 1024)
    .default(DEFAULT_BODY_LIMIT),
  /** Deepest nesting of arrays and objects in a payload (default 32); deeper gets 400. */
  jsonDepth: z.int().min(1).max(1_000).default(DEFAULT_JSON_DEPTH_LIMIT),
  /** Most message ids remembered against replays (default 100,000); the oldest are forgotten first. */
  replayCacheSize: z.int().min(1).max(10_000_000).default(DEFAULT_REPLAY_CACHE_SIZE),
});

/**
 * The incoming side's options: the documented `server` and `authentication`, and `limits`. Without `authentication`
 * nothing is received: `start()` opens no server and the routes cannot be registered.
 */
export const IncomingOptionsSchema = z.object({
  server: serverSchema.prefault({}),
  /** Required to receive webhooks; a manager that only sends may go without. */
  authentication: authenticationSchema.optional(),
  limits: limitsSchema.prefault({}),
});

/** What users write for {@link IncomingOptionsSchema}. */
export type IncomingOptions = z.input<typeof IncomingOptionsSchema>;
/** {@link IncomingOptions} with every default filled in. */
export type ResolvedIncomingOptions = z.output<typeof IncomingOptionsSchema>;
