import * as z from 'zod';
import type { ThreatEventHandler, ThreatEventName } from '../events/threat-events.js';
import { BUILTIN_FEED_IDS } from '../feeds/feed-ids.js';
import { headersSchema } from '../http/header-fields.js';
import { LOG_CATEGORIES } from '../logging/categories.js';
import { SYSLOG_FACILITIES, type SyslogFacilityName } from '../logging/rfc5424.js';
import { SeveritySchema } from '../records/severity.js';
import { MAX_TIMER_MS } from '../scheduler/clock.js';
import { defaultLookupTimeout } from '../scheduler/lookup-timeout.js';
import { mispFeedListSchema } from './misp-feed-list-schema.js';

/*
 * The one schema for every option of `new ThreatClient(config)`. Defaults live here and nowhere else, so the
 * README's option tables, `threatlib-config show` and the client all agree. Objects are strict: a misspelt option
 * is an error, not a silently ignored key.
 */

const positiveInt = z.int().positive();
const milliseconds = z.int().nonnegative();
const handler = <E extends ThreatEventName>(event: E) =>
  z.custom<ThreatEventHandler<E>>((value) => typeof value === 'function', {
    message: `expected a function to handle "${event}"`,
  });

/** A size with a unit, such as `100MB` or `512 KiB`; parsed by `parseSize`. */
const sizeString = z.string().regex(/^\s*\d+(\.\d+)?\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)\s*$/i, {
  message: 'expected a size such as "100MB" (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)',
});

/** Strategies are threshold presets for correlation; `custom` uses `thresholds`. */
export const STRATEGIES = ['defensive', 'balanced', 'aggressive', 'custom'] as const;

const thresholdsSchema = z.strictObject({
  /** Fraction 0..1 compared with correlation confidence / 100. */
  confidence: z.number().min(0).max(1),
  /** Distinct sources that must say malicious or suspicious. */
  consensus: z.int().min(1),
  /** Risk score 1..10 at or above which an indicator is a threat. */
  riskScore: z.number().min(1).max(10),
  /** Multiplier applied to every feed's reliability weight. */
  correlationWeight: z.number().positive().default(1),
});

/** Per-feed rate limit windows; any subset may be given. */
const rateWindowsSchema = z.strictObject({
  requestsPerSecond: z.number().positive().optional(),
  burstSize: positiveInt.optional(),
  requestsPerMinute: positiveInt.optional(),
  requestsPerHour: positiveInt.optional(),
  requestsPerDay: positiveInt.optional(),
});

const apiKeyObjectSchema = z.strictObject({
  /**
   * The key. May be left out when the key comes from elsewhere (a vault made with `ThreatClient.createVault`, or
   * `THREATLIB_<FEED>_API_KEY`) and the entry only carries the feed's other settings.
   */
  key: z.string({ error: 'expected the API key text' }).min(1, { error: 'must not be empty' }).optional(),
  /** Replaces the feed's base URL (self-hosted mirrors, tests). */
  endpoint: z.url({ error: 'expected an absolute URL' }).optional(),
  /** Requests per minute allowed for this key (narrows the feed's default quota). */
  rateLimit: z.number().positive().optional(),
  /** Request timeout in ms for this feed (overrides `performance.requestTimeout`). */
  timeout: positiveInt.optional(),
  /** AbuseIPDB report categories that count (others are ignored). */
  categories: z.array(z.int()).optional(),
});

const apiKeySchema = z.union([z.string().min(1, { error: 'must not be empty' }), apiKeyObjectSchema], {
  error: 'expected an API key string or an object {key, endpoint?, rateLimit?, timeout?, categories?}',
});

/**
 * `apiKeys`: feed id -> key. An entry whose value is `undefined` (`{feed_otx: process.env.OTX_KEY}` with the variable
 * unset) is a feed without a key, as if it were not written: it warns `MISSING_API_KEY` when the feed is listed.
 */
const apiKeysSchema = z.record(z.string(), apiKeySchema.optional()).transform((keys) => {
  const given: Record<string, z.output<typeof apiKeySchema>> = {};
  for (const [feed, entry] of Object.entries(keys)) if (entry !== undefined) given[feed] = entry;
  return given;
});

const authenticationSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('basic'),
      /** User name -> password hash (the scrypt PHC string `threatlib hash-password` prints). */
      users: z.record(z.string(), z.string()).optional(),
      realm: z.string().optional(),
    }),
    z.strictObject({
      type: z.literal('jwt'),
      secret: z.string().min(1).optional(),
      publicKey: z.string().min(1).optional(),
      jwksUrl: z.url().optional(),
      issuer: z.string().optional(),
      audience: z.union([z.string(), z.array(z.string())]).optional(),
      algorithms: z.array(z.enum(['HS256', 'RS256', 'ES256'])).optional(),
    }),
    z.strictObject({
      type: z.literal('oauth2'),
      tokenEndpoint: z.url({ error: 'expected the token endpoint URL' }),
      clientId: z.string({ error: 'required: the OAuth 2.0 client id' }).min(1),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).default([]),
      issuer: z.string().optional(),
      jwksUrl: z.url().optional(),
      introspectionEndpoint: z.url().optional(),
    }),
  ],
  { error: 'expected type "basic", "oauth2" or "jwt"' },
);

const securitySchema = z.strictObject({
  enforceHttps: z.boolean().default(true),
  validateCertificates: z.boolean().default(true),
  autoLock: z.boolean().default(true),
  lockTimeout: positiveInt.default(300_000),
  enableAuditLog: z.boolean().default(false),
  encryption: z
    .strictObject({
      algorithm: z.literal('aes-256-gcm').default('aes-256-gcm'),
      keyDerivation: z.enum(['argon2id', 'pbkdf2']).default('argon2id'),
      /** PBKDF2 iterations (OWASP 2023 recommends 600,000 for PBKDF2-HMAC-SHA256). */
      iterations: positiveInt.min(1000).default(600_000),
      saltSize: positiveInt.min(16).max(1024).default(32),
      tagSize: positiveInt.min(12).max(16).default(16),
    })
    .prefault({}),
  memoryProtection: z
    .strictObject({
      secureErase: z.boolean().default(true),
      preventDumps: z.boolean().default(false),
      obfuscateKeys: z.boolean().default(false),
    })
    .prefault({}),
  authentication: authenticationSchema.optional(),
});

const performanceOptions = z.strictObject({
  maxConcurrency: z.int().min(1).max(50).default(10),
  requestTimeout: positiveInt.default(30_000),
  retryAttempts: z.int().min(0).max(10).default(3),
  /**
   * Longest a feed request may wait for its quota, in ms. Unset (the default): requests wait as long as the quota
   * requires within the lookup's time limit (`lookupTimeout`); a request that cannot be sent in time answers
   * `rate_limited` with the time its feed reopens.
   */
  maxQueueWait: positiveInt.optional(),
  /**
   * Longest one lookup (`scout`, `correlate`, each input of `scoutMany`) takes, in ms, whatever its feeds do: a feed
   * that has not answered by then answers `timeout`, or `rate_limited` with `error.retryAt` when it is paused or out
   * of quota until later. Default: (retryAttempts + 1) × requestTimeout + the backoff delays
   * (retryDelay × (1 + backoffMultiplier + ... + backoffMultiplier^(retryAttempts − 1))), at most 10 minutes (or one
   * requestTimeout when that is longer): 127000 ms with the other defaults.
   */
  lookupTimeout: positiveInt.max(MAX_TIMER_MS, { error: `at most ${MAX_TIMER_MS} ms (about 24.8 days)` }).optional(),
  retryDelay: milliseconds.default(1000),
  backoffMultiplier: z.number().min(1).default(2),
  circuitBreaker: z
    .strictObject({
      failureThreshold: positiveInt.default(5),
      resetTimeout: positiveInt.default(60_000),
      monitoringWindow: positiveInt.default(300_000),
    })
    .prefault({}),
  rateLimit: z
    .strictObject({
      enabled: z.boolean().default(true),
      ...rateWindowsSchema.shape,
      /**
       * `quotaLow` fires when what is left of a feed's minute, hour or day window falls to this share of the window
       * or below (default 0.1: a tenth left), once until the window has more room again.
       */
      quotaLowThreshold: z.number().min(0).max(1).default(0.1),
      /** Windows for one feed, overriding the ones above and the feed's documented quota. */
      perFeed: z.record(z.string(), rateWindowsSchema).default({}),
    })
    .prefault({}),
});

/** `performance`, with the lookup time limit derived from the retry options when not given. */
const performanceSchema = performanceOptions.transform((performance) => ({
  ...performance,
  lookupTimeout: performance.lookupTimeout ?? defaultLookupTimeout(performance),
}));

/** Where a Redis server is (or a server speaking its protocol): `caching.kvserver` and `cluster.kvserver`. */
const kvserverSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.int().min(1).max(65_535).default(6379),
  password: z.string().optional(),
  db: z.int().min(0).default(0),
  keyPrefix: z.string().default('threatlib:'),
});

const cachingSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    type: z.enum(['memory', 'kvserver', 'file']).default('memory'),
    /** Time to live of a malicious or suspicious answer, in ms. */
    ttl: positiveInt.default(3_600_000),
    /**
     * Time to live of a clean or not-found answer, in ms. Shorter than `ttl`: a stale "clean" hides a new threat,
     * which is the costlier mistake.
     */
    negativeTtl: positiveInt.default(900_000),
    /** Items for the memory cache; a size such as `100MB` for the file cache. */
    maxSize: z.union([positiveInt, sizeString]).optional(),
    compression: z.boolean().default(false),
    kvserver: kvserverSchema.prefault({}),
    filesystem: z
      .strictObject({
        directory: z.string().min(1).optional(),
        maxSize: sizeString.default('100MB'),
        cleanupInterval: positiveInt.default(3_600_000),
      })
      .prefault({}),
  })
  .superRefine((caching, ctx) => {
    if (caching.type === 'memory' && typeof caching.maxSize === 'string') {
      ctx.addIssue({
        code: 'custom',
        path: ['maxSize'],
        message: 'the memory cache counts items: expected a whole number, not a size string',
      });
    }
    if (caching.type === 'file' && typeof caching.maxSize === 'number') {
      ctx.addIssue({
        code: 'custom',
        path: ['maxSize'],
        message: 'the file cache is bounded by bytes: expected a size string such as "100MB"',
      });
    }
  });

const eventsSchema = z.strictObject({
  threatFound: handler('threatFound').optional(),
  feedError: handler('feedError').optional(),
  vaultLocked: handler('vaultLocked').optional(),
  requestComplete: handler('requestComplete').optional(),
  rateLimited: handler('rateLimited').optional(),
  cacheEvicted: handler('cacheEvicted').optional(),
  audit: handler('audit').optional(),
  campaignDetected: handler('campaignDetected').optional(),
});

/** Loopback hosts, where `http:` is allowed for the CORS proxy (a proxy on the same machine, in development). */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * `browser.corsProxy`: a URL prefix to which the full feed URL is appended (the cors-anywhere convention). https, or
 * http on a loopback host; no user information, query or fragment (the feed URL goes right after it); ending in `/`.
 */
const corsProxyUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({
      code: 'custom',
      message:
        'expected an absolute URL ending in "/" to which the feed URL is appended, such as "https://proxy.example/"',
    });
    return;
  }
  const problem =
    url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname))
      ? 'expected an https:// URL (http:// only on localhost, 127.0.0.1 or [::1])'
      : url.username || url.password
        ? 'may not carry user information (send credentials in browser.proxy.headers)'
        : url.search || url.hash || value.includes('?') || value.includes('#')
          ? 'may not have a query or fragment: the full feed URL is appended to it'
          : !value.endsWith('/')
            ? 'must end in "/": the full feed URL is appended to it as is (https://proxy.example/https://feed.example/...)'
            : undefined;
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const browserSchema = z.strictObject({
  corsProxy: corsProxyUrl.optional(),
  /** How requests through `corsProxy` are sent. */
  proxy: z
    .strictObject({
      /** Headers sent to the proxy with every request (the threatlib server's proxy route wants its credentials). */
      headers: headersSchema.optional(),
      /**
       * The proxy adds the feeds' API keys itself (`@threatlib/server`'s proxy route): feeds that need a key are
       * asked through it without one.
       */
      addsKeys: z.boolean().default(false),
    })
    .prefault({}),
  fallbackMode: z.enum(['demo', 'offline', 'error']).default('error'),
  /** How long a verdict is kept for `fallbackMode: 'offline'`, in ms (default 30 days). */
  offlineRetention: positiveInt.max(MAX_TIMER_MS).default(30 * 24 * 3_600_000),
  secureContext: z.boolean().default(true),
});

/**
 * Browser storage (the documented `storage` option): where the verdict cache and the alert store live in a page. A
 * document store or search index is `integrations.storage`.
 */
const storageSchema = z.strictObject({
  type: z.enum(['indexeddb', 'localstorage', 'memory']).default('memory'),
  dbName: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
      error: 'expected 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit',
    })
    .default('threatlib'),
  version: positiveInt.default(1),
  encryptionKey: z.string().min(1).optional(),
});

const OFFLINE_DATA = 'expected true, false or a number of verdicts from 0 to 100000';

/**
 * The documented `pwa` options: how a page's service worker works. The client itself does nothing with them (it has
 * no page); they act through the service-worker module `@threatlib/pwa`, which an application's own worker imports
 * and its page registers with `client.config.pwa`, and through `@threatlib/server`'s dashboard, whose page carries
 * the mounted client's `pwa` when `dashboard.pwa` is not given. The defaults are the module's.
 */
const pwaSchema = z.strictObject({
  /** The page registers the worker (default true); false registers none and removes one registered before. */
  enabled: z.boolean({ error: 'expected true or false' }).default(true),
  /**
   * How the app shell and the API's reads (GET) are served: `network-first` (the network, the cache when it fails;
   * default) or `cache-first` (the cache, the network when it has nothing). Hashed files always come from the cache.
   */
  cacheStrategy: z
    .enum(['cache-first', 'network-first'], { error: 'expected cache-first or network-first' })
    .default('network-first'),
  /**
   * Keep the verdicts of recent scans for offline use (IndexedDB): true keeps the newest 500 (default), a number
   * keeps that many (0 to 100000), false keeps none. A scan made offline answers with those kept.
   */
  offlineData: z
    .union([z.boolean(), z.int().min(0, { error: OFFLINE_DATA }).max(100_000, { error: OFFLINE_DATA })], {
      error: OFFLINE_DATA,
    })
    .default(true),
  /**
   * Queue scans and alert actions made offline and send them once each, in order, when the network is back
   * (Background Sync where the browser has it, a replay on start and on `online` where it does not; default true).
   */
  syncOnReconnect: z.boolean({ error: 'expected true or false' }).default(true),
});

const logLevel = z.enum(['debug', 'info', 'warn', 'error'], { error: 'expected one of debug, info, warn, error' });
const lineFilterFunction = z
  .custom<(line: Record<string, unknown>) => boolean>((value) => typeof value === 'function', {
    message: 'expected a function (line) => boolean',
  })
  .optional();

const fileTransportSchema = z.strictObject({
  type: z.literal('file'),
  filename: z.string({ error: 'required: the log file path' }).min(1),
  /** Rotate once the file reaches this size. */
  maxSize: sizeString.default('10MB'),
  /** Files kept in all, the one being written included. */
  maxFiles: z.int().min(2, { error: 'at least 2: the file being written and one rotated file' }).default(5),
  /** Gzip rotated files (`<filename>.1.gz`...). */
  compress: z.boolean().default(false),
  level: logLevel.optional(),
  filter: lineFilterFunction,
});

const webhookTransportSchema = z.strictObject({
  type: z.literal('webhook'),
  url: z.url({ protocol: /^https?$/, error: 'expected the webhook URL (http or https)' }),
  /** Sent with every batch (an Authorization header, say); never logged. Names are tokens, values one line. */
  headers: headersSchema.default({}),
  batchSize: positiveInt.default(100),
  /** Most ms a line waits for its batch to fill. */
  flushInterval: positiveInt.default(5000),
  /** Further attempts of a batch after a network error, 408, 429 or 5xx. */
  retries: z.int().min(0).max(10).default(3),
  /** Lines held while the endpoint is down; past that, new lines are dropped and counted. */
  maxBuffer: positiveInt.default(10_000),
  /** Most ms one request may take. */
  timeout: positiveInt.default(10_000),
  level: logLevel.optional(),
  filter: lineFilterFunction,
});

const syslogTransportSchema = z.strictObject({
  type: z.literal('syslog'),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.int().min(1).max(65_535).default(514),
  facility: z
    .union([z.int().min(0).max(23), z.enum(Object.keys(SYSLOG_FACILITIES) as [SyslogFacilityName])], {
      error: `expected a facility code 0..23 or one of ${Object.keys(SYSLOG_FACILITIES).join(', ')}`,
    })
    .default('user'),
  protocol: z.enum(['udp', 'tcp']).default('udp'),
  /** APP-NAME of each message: printable ASCII, at most 48 characters. */
  appName: z
    .string()
    .regex(/^[\x21-\x7e]{1,48}$/, { error: 'expected 1 to 48 printable ASCII characters, no spaces' })
    .default('threatlib'),
  level: logLevel.optional(),
  filter: lineFilterFunction,
});

const transportSchema = z.discriminatedUnion(
  'type',
  [fileTransportSchema, webhookTransportSchema, syslogTransportSchema],
  {
    error: 'expected a transport {type: "file" | "webhook" | "syslog", ...}',
  },
);

/** The form keyed by type, read as the documented array (in the order file, webhook, syslog). */
function transportList(keyed: Record<string, object | undefined>): LogTransportConfig[] {
  const list: LogTransportConfig[] = [];
  for (const type of ['file', 'webhook', 'syslog'] as const) {
    const options = keyed[type];
    if (options) list.push({ ...options, type } as LogTransportConfig);
  }
  return list;
}

/** One entry of `logging.transports`, resolved. */
type LogTransportConfig = z.output<typeof transportSchema>;

/** The documented form of `logging.transports`. */
export const LogTransportsSchema = z.array(transportSchema).superRefine((transports, ctx) => {
  const files = new Map<string, number>();
  transports.forEach((transport, index) => {
    if (transport.type !== 'file') return;
    const first = files.get(transport.filename);
    if (first === undefined) files.set(transport.filename, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: [index, 'filename'],
        message: `transports[${first}] writes this file already: give each file transport its own filename`,
      });
  });
});

const keyedTransportsSchema = z
  .strictObject({
    file: fileTransportSchema.omit({ type: true }).optional(),
    webhook: webhookTransportSchema.omit({ type: true }).optional(),
    syslog: syslogTransportSchema.omit({ type: true }).optional(),
  })
  .transform(transportList);

/**
 * An array is read as the documented form, anything else as the keyed one: each form's own errors, with their own
 * paths (`transports[1].filename`, `transports.file.filename`), rather than a union's "Invalid input".
 */
const transportsSchema = z
  .custom<z.input<typeof LogTransportsSchema> | z.input<typeof keyedTransportsSchema>>(() => true)
  .transform((value, ctx): LogTransportConfig[] => {
    const result = (Array.isArray(value) ? LogTransportsSchema : keyedTransportsSchema).safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  });

const loggingSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** The lowest level written to stderr, and to each transport that sets no `level` of its own. */
  level: logLevel.default('info'),
  /** `json` (pino's lines), `text` (one line for people) or `structured` (Elastic Common Schema field names). */
  format: z.enum(['json', 'text', 'structured']).default('json'),
  /** Write lines to stderr (besides the transports). */
  stderr: z.boolean().default(true),
  filters: z
    .strictObject({
      /** Feed ids (`feed_otx`, or `otx`) whose lines are dropped. */
      excludeFeeds: z.array(z.string().min(1)).default([]),
      /** When not empty, only lines of these categories are written. */
      includeOnly: z
        .array(z.enum(LOG_CATEGORIES, { error: `expected a log category: one of ${LOG_CATEGORIES.join(', ')}` }))
        .default([]),
    })
    .prefault({}),
  /**
   * Where lines go besides stderr: an array of transports, several of one type allowed (two files, say). The form
   * keyed by type (`{file: {...}, syslog: {...}}`, one of each) is accepted too and read as the same array.
   */
  transports: transportsSchema.default([]),
});

const emailAlertsObjectSchema = z.strictObject({
  from: z.email({ error: 'expected the sender address' }),
  to: z.array(z.email({ error: 'expected an e-mail address' })).min(1, { error: 'at least one recipient' }),
  smtp: z.strictObject({
    host: z.string({ error: 'required: the SMTP server host' }).min(1),
    port: z.int().min(1).max(65_535).default(587),
    /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
    secure: z.boolean().default(false),
    user: z.string().optional(),
    password: z.string().optional(),
  }),
});

/** The mail relay of the address form: the local one, as `mail(1)` and cron use. */
const LOCAL_RELAY = { host: 'localhost', port: 25, secure: false } as const;

/**
 * `enterprise.monitoring.alerts.email`: `{from, to, smtp}`, or just the address alerts go to (`'soc@example.com'`),
 * which sends from that address through the local mail relay (localhost, port 25, no login).
 */
const emailAlertsSchema = z.union(
  [
    z.email({ error: 'expected an e-mail address, or an object {from, to, smtp}' }).transform(
      (address): z.output<typeof emailAlertsObjectSchema> => ({
        from: address,
        to: [address],
        smtp: { ...LOCAL_RELAY },
      }),
    ),
    emailAlertsObjectSchema,
  ],
  { error: 'expected an e-mail address, or an object {from, to: [addresses], smtp: {host, ...}}' },
);

const enterpriseSchema = z.strictObject({
  /**
   * Every alert also sent to one endpoint as JSON, CEF or LEEF: when `enabled`, `client.start()` builds the forwarder
   * of `@threatlib/siem` (`createSiemForwarderIntegration`), which validates these options in full. `endpoint` is
   * `https://...` (a POST per alert), `syslog+tls://host[:6514]` (RFC 5425) or `syslog+tcp://host:port` (RFC 6587,
   * only with `security.enforceHttps: false`); `leef` says how LEEF is written, `headers` go with each HTTPS POST,
   * `tls` adds a CA.
   */
  siemIntegration: z
    .strictObject({
      enabled: z.boolean().default(false),
      endpoint: z.url().optional(),
      format: z.enum(['json', 'cef', 'leef']).default('json'),
      leef: z.strictObject({ version: z.enum(['1.0', '2.0']).optional(), delimiter: z.string().optional() }).optional(),
      headers: headersSchema.optional(),
      tls: z
        .strictObject({
          ca: z.union([z.string(), z.array(z.string())]).optional(),
          rejectUnauthorized: z.boolean().optional(),
          servername: z.string().optional(),
        })
        .optional(),
    })
    .superRefine((option, ctx) => {
      if (option.enabled && option.endpoint === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['endpoint'],
          message: 'required when enabled: https://..., syslog+tls://host:port or syslog+tcp://host:port',
        });
      }
    })
    .prefault({}),
  streamProcessing: z
    .strictObject({
      enabled: z.boolean().default(false),
      batchSize: positiveInt.default(100),
      flushInterval: positiveInt.default(1000),
    })
    .prefault({}),
  monitoring: z
    .strictObject({
      /**
       * Whether automated probes run `client.health()`'s checks (the server's `GET /health`); false leaves them the
       * client's lifecycle state only. `client.health()` called directly always checks.
       */
      healthChecks: z.boolean().default(true),
      /**
       * Whether the client's metrics are exposed: false leaves the client out of `createClientMetrics` (from
       * `@threatlib/core/metrics`) and of the server's `GET /metrics` (404 once no mounted client has them).
       */
      metrics: z.boolean().default(true),
      /** Where to send an alert when a feed's circuit breaker opens or a feed refuses its API key. */
      alerts: z
        .strictObject({
          /** Least time between two alerts about the same feed and condition, in ms (default 15 minutes). */
          cooldownMs: positiveInt.default(900_000),
          email: emailAlertsSchema.optional(),
          webhook: z
            .strictObject({
              url: z.url({ error: 'expected the webhook URL' }),
              /**
               * Sent with every alert (an Authorization header, say); never logged nor put in an alert. Names are
               * tokens, values one line.
               */
              headers: headersSchema.default({}),
            })
            .optional(),
        })
        .prefault({}),
    })
    .prefault({}),
});

const warninglistsSchema = z.strictObject({
  /** The built-in special-use ranges (private, loopback, link-local, multicast...) and empty-file hashes. */
  builtin: z.boolean().default(true),
  /** Paths of MISP warninglist JSON files. */
  files: z.array(z.string().min(1)).default([]),
});

/**
 * `lists[].taxii`: a TAXII 2.1 collection polled for STIX indicators (see the core README, "TAXII collections as
 * lists"). The position (`added_after`) and the indicators held are kept between runs.
 */
const taxiiListSchema = z.strictObject({
  /**
   * The API root's URL (`https://taxii.example/api1/`), as the server's discovery lists it. HTTPS unless
   * `security.enforceHttps` is false; no user name or password in it (use `auth`).
   */
  url: z
    .url({ error: 'expected the URL of the TAXII API root, such as https://taxii.example/api1/' })
    .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url), {
      error: 'must not hold a user name or password: give them in auth ({type: "basic", username, password})',
    }),
  /** The collection's `id`, as `GET <api root>/collections/` lists it. */
  collection: z
    .string({ error: 'required: the id of the TAXII collection' })
    .regex(/^[A-Za-z0-9._~-]{1,128}$/, { error: 'expected a collection id (letters, digits, ".", "_", "~", "-")' }),
  /** How requests authenticate: `{type: 'bearer', token}` or `{type: 'basic', username, password}`. */
  auth: z
    .discriminatedUnion(
      'type',
      [
        z.strictObject({ type: z.literal('bearer'), token: z.string().min(1, { error: 'must not be empty' }) }),
        z.strictObject({
          type: z.literal('basic'),
          username: z
            .string()
            .min(1, { error: 'must not be empty' })
            .regex(/^[^:]*$/, { error: 'must not hold ":"' }),
          password: z.string(),
        }),
      ],
      { error: 'expected {type: "bearer", token} or {type: "basic", username, password}' },
    )
    .optional(),
  /** Time between two polls, in ms (default 3600000, one hour; 10 s to 7 days). */
  pollInterval: milliseconds
    .min(10_000, { error: 'at least 10000 ms (10 s)' })
    .max(604_800_000, { error: 'at most 7 days (604800000 ms)' })
    .default(3_600_000),
  /** Time one request may take, in ms (default 30000; at most 300000). */
  timeout: positiveInt.max(300_000, { error: 'at most 300000 ms (5 minutes)' }).default(30_000),
  /** Objects asked for per page (`limit`; default 1000, at most 10000); the server may send fewer. */
  pageSize: z.int().min(1).max(10_000).default(1000),
  /**
   * The file the position and the indicators are kept in between runs (default `lists/<name>.taxii.json` in the
   * cache directory, `caching.filesystem.directory`); a storage integration that keeps list state is used instead.
   */
  stateFile: z.string().min(1).optional(),
});

const localListSchema = z.strictObject({
  /** Reported as source `list:<name>`. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/i, {
    error: 'expected letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit',
  }),
  /** The list file; required unless the list is read from elsewhere (`misp`, `taxii`). */
  file: z.string({ error: 'required: the path of the list file' }).min(1).optional(),
  /** A MISP feed (a directory or URL with `manifest.json` and event files) instead of a file. */
  misp: mispFeedListSchema.optional(),
  /** A TAXII 2.1 collection polled for STIX indicators, instead of a file. */
  taxii: taxiiListSchema.optional(),
  format: z.enum(['plain', 'csv', 'misp-warninglist', 'stix']).default('plain'),
  /** What a match means. */
  verdict: z.enum(['malicious', 'suspicious', 'clean']).default('malicious'),
  /** CSV column holding the indicator: a header name or a 0-based index (default the first). */
  column: z.union([z.string().min(1), z.int().nonnegative()]).optional(),
  /**
   * Plain, CSV and STIX lists: `host` (default) lets a listed address or domain match URLs on it, names under it and
   * e-mail addresses at it; `exact` matches each entry only as itself.
   */
  match: z.enum(['host', 'exact']).optional(),
  /** Reliability weight in correlation, 0..1 (default 0.7). */
  weight: z.number().min(0).max(1).optional(),
});

/** A list reads one source, a file, a MISP feed or a TAXII collection; the options of file formats go with a file. */
function checkListSource(
  list: { file?: string | undefined; misp?: unknown; taxii?: unknown; format: string; column?: unknown },
  ctx: z.RefinementCtx,
): void {
  const sources = (['file', 'misp', 'taxii'] as const).filter((key) => list[key] !== undefined);
  if (sources.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['file'],
      message:
        'required: the path of the list file (or misp: {url | directory} for a MISP feed, or taxii: {url, collection} for a TAXII collection)',
    });
  } else if (sources.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: [sources[1] ?? ''],
      message: `give one source per list, not ${sources.join(' and ')}`,
    });
  }
  if (list.file !== undefined) return;
  if (list.format !== 'plain') {
    ctx.addIssue({
      code: 'custom',
      path: ['format'],
      message: `applies to list files; a ${list.taxii === undefined ? 'MISP feed' : 'TAXII collection'} has its own format`,
    });
  }
  if (list.column !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['column'], message: 'applies to CSV list files' });
  }
}

const correlationSchema = z.strictObject({
  /** Reliability weight per source id, 0..1, replacing the documented defaults. */
  weights: z.record(z.string(), z.number().min(0).max(1)).default({}),
  /** Evidence older than this many days counts half as much, and so on (default 180). */
  recencyHalfLifeDays: z.number().positive().default(180),
});

/**
 * `alerting`: the alerts the client raises by itself. When a scout or correlation concludes a threat, the client
 * stores one alert per indicator in its alert store and delivers it to every started integration (see the core
 * README, "Alerts").
 */
const alertingSchema = z.strictObject({
  /**
   * Raise an alert when a threat is concluded (default true). False stops the automatic alerts only: alerts given
   * to `client.alerts.add` or `POST /alerts` are still stored and delivered.
   */
  enabled: z.boolean().default(true),
  /**
   * The least severity an automatic alert needs (default `informational`: every threat concluded); the severity
   * comes from the risk score (`severityForRiskScore`: 9–10 critical, 7–8 high, 4–6 medium, 2–3 low, 1
   * informational). Any case.
   */
  minSeverity: SeveritySchema.default('informational'),
  /**
   * The same indicator concluded again within this many ms raises no second alert (default 3600000, one hour; 0
   * raises one at every conclusion).
   */
  dedupeWindowMs: milliseconds.max(2_592_000_000, { error: 'at most 30 days (2592000000 ms)' }).default(3_600_000),
});

/**
 * `campaigns`: the campaign tracker. A campaign is at least `minIndicators` distinct threats concluded within
 * `windowMs` that share a malware family, a tag or a referenced pulse or report; the client emits `campaignDetected`
 * when one forms and each time it grows (the webhooks send it as `campaign-detected`).
 */
const campaignsSchema = z.strictObject({
  /** Track campaigns (default true). */
  enabled: z.boolean().default(true),
  /** Distinct threat indicators that make a campaign (default 3). */
  minIndicators: z.int().min(2).max(10_000).default(3),
  /** How long a threat counts towards a campaign, in ms (default 86400000, 24 hours; at most 30 days). */
  windowMs: milliseconds
    .min(1, { error: 'expected a positive number of ms' })
    .max(2_592_000_000, { error: 'at most 30 days (2592000000 ms)' })
    .default(86_400_000),
});

/**
 * `cluster`: clients that share one set of feed quotas, one in-flight lookup per indicator, one verdict cache, one
 * circuit breaker per feed, the campaign tracker and alert deduplication through a Redis server, so that many
 * processes on many machines behave towards the feeds as one client. Every client with the same
 * `kvserver.keyPrefix` on the same server shares.
 */
const clusterSchema = z.strictObject({
  /** Share through `kvserver` (default false). */
  enabled: z.boolean().default(false),
  /** The Redis server the clients share, in the form of `caching.kvserver`. */
  kvserver: kvserverSchema.prefault({}),
  /**
   * How many processes share the quotas. While Redis cannot be reached each process keeps to its share of every
   * quota window: the window divided by this number, or by the number of peers last seen in Redis when that is more.
   */
  expectedPeers: z.int().min(1).max(10_000).optional(),
  /**
   * Longest one Redis command may take before the client treats Redis as unreachable, in ms (default 2000: a busy
   * client's event loop can stall for a second, and a reply read late is not a Redis outage).
   */
  commandTimeout: positiveInt.max(60_000, { error: 'at most 60000 ms' }).default(2000),
});

/** An integration's own options: its package validates them; core only requires an object. */
const integrationOptions = z.record(z.string(), z.unknown(), { error: 'expected an object of integration options' });

/**
 * `integrations`: the options of each integration by name. `client.start()` builds the keys of
 * `INTEGRATION_PACKAGES` with their packages' factories, which validate the options in full (`Configuration invalid:
 * integrations.<key>.<path>: ...`); any other key is the options of an integration registered under that name. Core
 * checks here only what it can without a package: each entry is an object, and the few fields every shape of it
 * has.
 */
const integrationsSchema = z
  .looseObject({
    /** `@threatlib/siem`: `{platform, host, port, credentials, timeout, retries}`. */
    siem: integrationOptions.optional(),
    /** `@threatlib/webhooks`: `{incoming, outgoing: [...]}`. */
    webhooks: z
      .looseObject({
        incoming: integrationOptions.optional(),
        outgoing: z.array(integrationOptions).optional(),
      })
      .optional(),
    /** `@threatlib/storage`: `{type, uri, database}` or a search index's `{type, node, auth, indices}`. */
    storage: z
      .looseObject({
        type: z.string().min(1),
        uri: z.string().min(1).optional(),
        database: z.string().optional(),
      })
      .optional(),
    /** `@threatlib/queue`: `{type: 'rabbitmq', connection, queues}` or `{type: 'kafka', brokers, topics}`. */
    messageQueue: z
      .looseObject({
        type: z.enum(['rabbitmq', 'kafka']),
        connection: z.unknown().optional(),
        queues: z.unknown().optional(),
      })
      .optional(),
    /** `@threatlib/cloud`: `{region, credentials: {accessKeyId, secretAccessKey}}`. */
    cloud: integrationOptions.optional(),
    /** `@threatlib/cloud`: `{subscriptionId, resourceGroupName, workspaceName, credentials}`. */
    cloudSiem: integrationOptions.optional(),
  })
  .catchall(integrationOptions);

/**
 * The schema of the client's configuration. `ThreatConfig` is what users write; `ResolvedConfig` is the same
 * with every default filled in.
 */
export const ThreatConfigSchema = z
  .strictObject({
    sources: z
      .array(z.enum(BUILTIN_FEED_IDS, { error: `expected one of ${BUILTIN_FEED_IDS.join(', ')}` }), {
        error: (issue) =>
          issue.input === undefined
            ? `required: list the feeds to ask, from ${BUILTIN_FEED_IDS.join(', ')}`
            : 'expected an array of feed ids',
      })
      .refine((list) => new Set(list).size === list.length, { error: 'a feed is listed twice' }),
    strategy: z.enum(STRATEGIES).default('defensive'),
    thresholds: thresholdsSchema.optional(),
    apiKeys: apiKeysSchema.default({}),
    security: securitySchema.prefault({}),
    performance: performanceSchema.prefault({}),
    caching: cachingSchema.prefault({}),
    events: eventsSchema.default({}),
    browser: browserSchema.prefault({}),
    storage: storageSchema.prefault({}),
    pwa: pwaSchema.prefault({}),
    logging: loggingSchema.prefault({}),
    enterprise: enterpriseSchema.prefault({}),
    integrations: integrationsSchema.default({}),
    warninglists: warninglistsSchema.prefault({}),
    lists: z
      .array(localListSchema.superRefine(checkListSource))
      .default([])
      .refine((lists) => new Set(lists.map((l) => l.name)).size === lists.length, {
        error: 'two lists have the same name',
      }),
    correlation: correlationSchema.prefault({}),
    alerting: alertingSchema.prefault({}),
    campaigns: campaignsSchema.prefault({}),
    cluster: clusterSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.browser.corsProxy === undefined && (config.browser.proxy.headers || config.browser.proxy.addsKeys)) {
      ctx.addIssue({
        code: 'custom',
        path: ['browser', 'proxy'],
        message: 'set browser.corsProxy too: these options are about requests sent through it',
      });
    }
    if (config.browser.fallbackMode === 'offline' && !config.caching.enabled) {
      ctx.addIssue({
        code: 'custom',
        path: ['browser', 'fallbackMode'],
        message: '"offline" answers from the verdicts kept in the cache: it needs caching.enabled',
      });
    }
    if (config.sources.length === 0 && config.lists.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['sources'], message: 'list at least one feed (or configure lists)' });
    }
    if (config.strategy === 'custom' && !config.thresholds) {
      ctx.addIssue({
        code: 'custom',
        path: ['thresholds'],
        message: 'required when strategy is "custom": {confidence, consensus, riskScore}',
      });
    }
    if (config.strategy !== 'custom' && config.thresholds) {
      ctx.addIssue({
        code: 'custom',
        path: ['thresholds'],
        message: `only used with strategy "custom" (strategy is "${config.strategy}"): set strategy to "custom" or remove thresholds`,
      });
    }
  });

/** A configuration as users write it: only `sources` is required. */
export type ThreatConfig = z.input<typeof ThreatConfigSchema>;
/** A configuration with every default filled in, as the client uses it. */
export type ResolvedConfig = z.output<typeof ThreatConfigSchema>;
/** The `logging` part of a resolved configuration. */
export type LoggingConfig = ResolvedConfig['logging'];
/** The value of one `apiKeys` entry, as users write it. */
export type ApiKeyConfig = z.input<typeof apiKeySchema>;
/** The resolved `security` options. */
export type SecurityConfig = ResolvedConfig['security'];
/** The resolved `performance` options. */
export type PerformanceConfig = ResolvedConfig['performance'];
/** The resolved `cluster` options. */
export type ClusterConfig = ResolvedConfig['cluster'];
/** The resolved `alerting` options. */
export type AlertingConfig = ResolvedConfig['alerting'];
/** The `pwa` options with their defaults filled in (`client.config.pwa`), as `@threatlib/pwa` takes them. */
export type PwaConfig = ResolvedConfig['pwa'];
/** A correlation strategy name. */
export type Strategy = (typeof STRATEGIES)[number];
