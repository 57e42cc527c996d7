import {
  ALERT_METADATA_MAX_BYTES,
  AlertSchema,
  FEED_STATUSES,
  INDICATOR_TYPE_NAMES,
  INDICATOR_TYPES,
  SEVERITIES,
  SeveritySchema,
} from '@threatlib/core';
import { AlertFieldsSchema } from '@threatlib/core/integration';
import { z } from 'zod';

/*
 * Every request and response of the API, as zod schemas. Requests are validated with them; the OpenAPI document
 * is generated from them, so the two cannot drift apart.
 */

const indicatorText = z
  .string()
  .min(1)
  .max(8192)
  .meta({ description: 'An IP, domain, URL, hash or email; defanged forms are accepted' });
const indicatorType = z.enum(INDICATOR_TYPE_NAMES).meta({
  description:
    'Skip detection and treat the input as this type: `ip` is an IPv4 or IPv6 address (whichever it is), `hostname` a domain; results report the precise type',
});

/** `explain: true` on a scan: each verdict carries its `explanation`, so no second lookup is needed to show why. */
const explainFlag = z.boolean().meta({
  description:
    "Answer each verdict with its `explanation` (strategy, thresholds, each source's part in it), as `POST /correlate` gives it, from the same lookup: no second lookup, and so no second alert (default false)",
});

export const ScanRequest = z
  .strictObject({ indicator: indicatorText, type: indicatorType.optional(), explain: explainFlag.optional() })
  .meta({ id: 'ScanRequest' });

const BatchItem = z.union([
  indicatorText,
  z.strictObject({ indicator: indicatorText, type: indicatorType.optional() }),
]);

export const BatchRequest = z
  .strictObject({
    indicators: z.array(BatchItem).min(1, { error: 'at least one indicator' }),
    explain: explainFlag.optional(),
  })
  .meta({ id: 'BatchRequest' });

export const CorrelateRequest = z
  .strictObject({ indicator: indicatorText, type: indicatorType.optional() })
  .meta({ id: 'CorrelateRequest' });

/**
 * A query parameter that is a whole number written in decimal digits: `z.coerce.number()` reads `0x10` as 16, `1e1`
 * as 10, ` 5` as 5 and an empty value as 0.
 */
const decimal = (schema: z.ZodNumber) =>
  z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (/^[0-9]{1,15}$/.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: 'expected a whole number in decimal digits (0-9 only)', input: value });
    return value;
  }, schema);

/**
 * `severity=high` or `severity=high,critical` (or the parameter repeated): one or more severity names, any case. An
 * empty value, or more names than there are severities, is refused.
 */
const SEVERITY_COUNT = SEVERITIES.length;
const severityList = z.preprocess(
  (value) => {
    const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
    return parts.map((part) => (typeof part === 'string' ? part.trim() : part));
  },
  z
    .array(SeveritySchema)
    .min(1, { error: 'expected one or more severities, comma-separated' })
    .max(SEVERITY_COUNT, { error: `at most ${SEVERITY_COUNT} severities` }),
);

export const AlertsQuery = z
  .strictObject({
    limit: decimal(z.int().min(1).max(500)).default(50),
    cursor: z.string().max(100).optional(),
    minSeverity: SeveritySchema.optional().meta({
      description: 'Only alerts at least this severe: informational, low, medium, high or critical (any case)',
    }),
    severity: severityList.optional().meta({
      description:
        'Only alerts of exactly this severity, or of one of several comma-separated (`high,critical`), any case; with minSeverity, both apply',
    }),
    since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only alerts at or after this time' }),
  })
  .meta({ id: 'AlertsQuery' });

/** `GET /alerts/{id}`: the id the alert was stored under. */
export const AlertIdParams = z.strictObject({ id: z.string().min(1).max(200) });

/** A JSON value whose objects have no `__proto__` key (fastify refuses such bodies: prototype pollution). */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const jsonKey = z.string().regex(/^(?!__proto__$)/, { error: 'the key "__proto__" is not accepted' });
export const JsonValue: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(jsonKey, JsonValue)]),
  )
  .meta({ id: 'JsonValue' });

/**
 * `POST /alerts`: the documented alert `{title, severity, description?, indicators, timestamp?}` or the
 * webhook-handler form `{title, indicator, correlation}`; core's `AlertInputSchema` reconciles the two when the
 * alert is stored.
 */
const AlertCreateFields = AlertFieldsSchema.extend({
  // The size is checked before the value is walked: a 1 MiB body of tiny values costs the schema far more than a
  // serialisation does, and is refused either way.
  metadata: z
    .preprocess(
      (value, ctx) => {
        const bytes = jsonBytes(value);
        if (bytes > ALERT_METADATA_MAX_BYTES) {
          ctx.addIssue({
            code: 'custom',
            message: `at most ${ALERT_METADATA_MAX_BYTES} bytes as JSON; this is ${bytes}`,
            input: undefined,
          });
        }
        return value;
      },
      z.record(jsonKey, JsonValue),
    )
    .optional()
    .meta({
      description: `Any JSON object of at most ${ALERT_METADATA_MAX_BYTES} bytes as JSON, kept as given; no key may be "__proto__"`,
    }),
});
const ALERT_CREATE_KEYS = Object.keys(AlertCreateFields.shape);
const keysBut = (left: string) => ({ propertyNames: { enum: ALERT_CREATE_KEYS.filter((key) => key !== left) } });

export const AlertCreate = AlertCreateFields.meta({
  id: 'AlertCreate',
  // The rules between fields that core's AlertInputSchema applies, stated for clients (and the fuzzer): a severity
  // or something to derive it from, and one of the two forms, not both. Stated without `not` (and without `false`
  // schemas), which Swagger UI renders as `never`: "not both" is "every key but indicator, or every key but
  // indicators".
  allOf: [
    { anyOf: [{ required: ['severity'] }, { required: ['correlation'] }, { required: ['riskScore'] }] },
    { anyOf: [keysBut('indicator'), keysBut('indicators')] },
  ],
});

/** A value's size as JSON in UTF-8 bytes (0 for what JSON cannot hold; the schema refuses that anyway). */
function jsonBytes(value: unknown): number {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
  } catch {
    return 0;
  }
}

/** How a feed's lookup ended; every status but `ok` and `not_found` is a failure to answer. */
const FeedStatus = z.enum(FEED_STATUSES).meta({
  description:
    'ok and not_found are answers; every other status is a failure to answer: unsupported (the feed does not look up this type), not_configured (no API key), auth_error, rate_limited (error.retryAt says when it reopens), timeout (no answer within the request timeout or the lookup time limit, performance.lookupTimeout), circuit_open, error',
});

export const FeedResult = z
  .object({
    feed: z.string(),
    indicator: z.string(),
    type: z.enum(INDICATOR_TYPES),
    status: FeedStatus,
    verdict: z.enum(['malicious', 'suspicious', 'clean', 'unknown']),
    score: z.number().min(0).max(1),
    categories: z.array(z.string()),
    tags: z.array(z.string()),
    malwareFamilies: z.array(z.string()),
    firstSeen: z.string().optional(),
    lastSeen: z.string().optional(),
    references: z.array(z.string()),
    evidence: z.array(z.string()),
    durationMs: z.number(),
    cached: z.boolean(),
    source: z.enum(['stored', 'demo']).optional().meta({
      description:
        "Set when this is not the feed's live answer (the client's browser.fallbackMode): a stored verdict (see lookedUpAt) or demo data",
    }),
    lookedUpAt: z.iso.datetime().optional().meta({ description: "With source 'stored': when the feed gave it" }),
    error: z
      .object({
        message: z.string(),
        statusCode: z.number().optional(),
        retryAfterMs: z
          .number()
          .optional()
          .meta({ description: 'How long the feed asked to wait (Retry-After), in ms' }),
        retryAt: z.iso.datetime().optional().meta({
          description:
            'With rate_limited: when the feed takes requests again (ISO 8601), from its Retry-After or the quota window that held the request back; absent when the feed did not say',
        }),
        network: z.boolean().optional(),
      })
      .optional()
      .meta({ description: 'For failures: what went wrong (never a key)' }),
  })
  .meta({ id: 'FeedResult' });

const Warninglist = z.object({ list: z.string(), entry: z.string(), reason: z.string() });

const Contribution = z.object({
  feed: z.string(),
  status: FeedStatus,
  verdict: z.string(),
  counted: z.boolean(),
  weight: z.number(),
  recency: z.number(),
  score: z.number(),
  contribution: z.number(),
  reason: z.string(),
});

const Verdict = z.enum(['malicious', 'suspicious', 'clean', 'unknown']);

const Thresholds = z.object({
  confidence: z.number(),
  consensus: z.number(),
  riskScore: z.number(),
  correlationWeight: z.number(),
});
const Failures = z.array(z.object({ feed: z.string(), status: FeedStatus, message: z.string() }));

/** Why a scan's verdict is what it is: the correlation's own figures (a scan asked with `explain: true`). */
const ScanExplanation = z
  .object({
    strategy: z.string(),
    sourcesQueried: z.number().int(),
    sourcesAnswered: z.number().int(),
    thresholds: Thresholds,
    contributions: z.array(Contribution),
    failures: Failures,
  })
  .meta({
    description:
      "Why the verdict is what it is, from the scan's own lookup (present when the request asked `explain: true`)",
  });

export const ScanResponse = z
  .object({
    indicator: z.string(),
    type: z.enum(INDICATOR_TYPES),
    verdict: Verdict,
    isThreat: z.boolean(),
    riskScore: z.number().int().min(1).max(10),
    confidence: z.number().min(0).max(100),
    consensus: z.number().int().min(0),
    results: z.array(FeedResult),
    warninglist: Warninglist.optional(),
    startedAt: z.string(),
    durationMs: z.number(),
    explanation: ScanExplanation.optional(),
  })
  .meta({ id: 'ScanResponse' });

export const CorrelationResponse = z
  .object({
    indicator: z.string(),
    type: z.enum(INDICATOR_TYPES),
    confidence: z.number(),
    verdict: Verdict,
    isThreat: z.boolean(),
    consensus: z.number().int(),
    sourcesQueried: z.number().int(),
    sourcesAnswered: z.number().int(),
    riskScore: z.number().int().min(1).max(10),
    strategy: z.string(),
    thresholds: Thresholds,
    contributions: z.array(Contribution),
    failures: Failures,
    warninglist: Warninglist.optional(),
    results: z.array(FeedResult),
    startedAt: z.string(),
    durationMs: z.number(),
  })
  .meta({ id: 'CorrelationResponse' });

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

export const BatchResponse = z
  .object({
    results: z.array(
      z.union([
        z.object({ input: z.string(), ok: z.literal(true), result: ScanResponse }),
        z.object({ input: z.string(), ok: z.literal(false), problem: Problem }),
      ]),
    ),
    summary: z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
  })
  .meta({ id: 'BatchResponse' });

export const FeedStatusResponse = z
  .object({
    feeds: z.array(
      z.object({
        feed: z.string(),
        name: z.string(),
        configured: z.boolean(),
        breaker: z.object({
          state: z.enum(['closed', 'open', 'half_open']),
          failures: z.number().int(),
          openedAt: z.string().optional(),
          nextTrialAt: z.string().optional(),
        }),
        quota: z.array(
          z.object({
            window: z.enum(['second', 'minute', 'hour', 'day']),
            limit: z.number(),
            remaining: z.number(),
            resetsAt: z.string().optional(),
          }),
        ),
        limits: z.string(),
        pausedUntil: z.string().optional(),
        queued: z.number().int(),
        inFlight: z.number().int(),
        requests: z.object({
          sent: z.number().int(),
          retries: z.number().int(),
          cacheHits: z.number().int(),
          deduplicated: z.number().int(),
          byStatus: z.record(z.string(), z.number().int()),
        }),
        lastError: z.object({ message: z.string(), status: z.string(), at: z.string() }).optional(),
        keyRejected: z.object({ at: z.string(), statusCode: z.number().int().optional() }).optional(),
        latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable(), samples: z.number().int() }),
      }),
    ),
  })
  .meta({ id: 'FeedStatusResponse' });

export const QuotasResponse = z
  .object({
    feeds: z.array(
      z.object({
        feed: z.string(),
        limits: z.string(),
        windows: z.array(
          z.object({
            window: z.enum(['second', 'minute', 'hour', 'day']),
            limit: z.number(),
            remaining: z.number(),
            resetsAt: z.string().optional(),
          }),
        ),
        shared: z.boolean(),
        pausedUntil: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'QuotasResponse' });

export const Alert = AlertSchema.meta({ id: 'Alert' });

export const AlertPage = z
  .object({ items: z.array(Alert), nextCursor: z.string().optional() })
  .meta({ id: 'AlertPage' });

export const HealthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']),
    live: z.boolean(),
    ready: z.boolean(),
    uptimeSeconds: z.number(),
    clients: z.array(
      z.object({
        prefix: z.string(),
        state: z.string(),
        /** Whether `client.health()` ran (`enterprise.monitoring.healthChecks`); if not, only `state` counts. */
        checked: z.boolean(),
        health: z.enum(['healthy', 'degraded', 'unhealthy']).optional(),
        reasons: z.array(z.string()).optional(),
        checkedAt: z.string().optional(),
        feeds: z.array(
          z.object({
            feed: z.string(),
            configured: z.boolean(),
            breaker: z.string(),
            keyRejected: z.boolean().optional(),
            status: z.enum(['pass', 'warn', 'fail', 'not_configured']).optional().meta({
              description:
                '`not_configured`: the feed needs a key and has none, so it is never asked; not a failure (the status stays ok)',
            }),
          }),
        ),
        cache: z
          .object({
            status: z.enum(['pass', 'warn', 'fail']),
            enabled: z.boolean(),
            kind: z.string().optional(),
            roundTripMs: z.number().optional(),
            reason: z.string().optional(),
          })
          .optional(),
        vault: z
          .object({ status: z.enum(['pass', 'warn', 'fail']), configured: z.boolean(), locked: z.boolean().optional() })
          .optional(),
        integrations: z.array(z.object({ name: z.string(), healthy: z.boolean(), detail: z.string().optional() })),
      }),
    ),
  })
  .meta({ id: 'HealthResponse' });

/** An indicator type, as requests name it. */
export type ScanType = z.infer<typeof indicatorType>;

/** One source's answer as `POST /stix/bundle` reads it (a `FeedResult` is one). */
const StixSourceAnswer = z.object({
  feed: z.string().min(1).max(200),
  status: z.string().max(50),
  verdict: z.string().max(50),
  score: z.number().min(0).max(1).optional(),
  categories: z.array(z.string().max(1000)).max(1000).optional(),
  tags: z.array(z.string().max(1000)).max(1000).optional(),
  malwareFamilies: z.array(z.string().max(1000)).max(1000).optional(),
  references: z.array(z.string().max(8192)).max(1000).optional(),
});

export const StixBundleRequest = z
  .strictObject({
    correlations: z
      .array(
        z.object({
          indicator: indicatorText,
          type: indicatorType,
          confidence: z.number().min(0).max(100),
          verdict: Verdict,
          startedAt: z.string().max(64).optional(),
          results: z.array(StixSourceAnswer).max(1000).optional(),
        }),
      )
      .min(1, { error: 'at least one result' }),
  })
  .meta({
    id: 'StixBundleRequest',
    description:
      'Scan results as /threats/batch or /correlate answer them (other fields are ignored); the bundle is written from them, nothing is looked up',
  });

/** `POST /alerts/{id}/redeliver` takes no fields: an empty object, or no body. */
export const RedeliverRequest = z.strictObject({});

export const CampaignList = z
  .object({
    enabled: z.boolean().meta({ description: "Whether the client tracks campaigns (its config's campaigns.enabled)" }),
    campaigns: z.array(
      z.object({
        campaign: z.string(),
        status: z.enum(['formed', 'grown']),
        sharedBy: z.object({ kind: z.string(), value: z.string() }),
        indicators: z.array(z.string()),
        indicatorCount: z.number().int(),
        firstSeen: z.string(),
        lastSeen: z.string(),
        sources: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'CampaignList' });
