import { describe, expect, it } from 'vitest';
import * as integration from './integration/index.js';
import * as testing from './testing/index.js';

/**
 * What an integration package builds with, at `@threatlib/core/integration` (the values; the types are checked by the
 * packages that import them, which typecheck against this entry).
 */
const INTEGRATION_VALUES = [
  'BUILTIN_FEED_LIST',
  'CONFIG_EXIT_CODES',
  'CircuitBreaker',
  'DEFAULT_FEED_QUOTAS',
  'DEFAULT_MEMORY_CACHE_SIZE',
  'EMBEDDED_DEFAULTS',
  'EventBus',
  'FeedQuota',
  'FeedRegistry',
  'FeedScheduler',
  'FileCache',
  'FileTransport',
  'INTEGRATION_PACKAGES',
  'KvServerCache',
  'MemoryCache',
  'REDACTED',
  'SYSLOG_FACILITIES',
  'SyslogTransport',
  'WebhookTransport',
  'abuseipdbFeed',
  'answer',
  'assertFeed',
  'cacheKey',
  'checkEndpoint',
  'createCache',
  'createHttpClient',
  'createOAuth2TokenSource',
  'crowdsecFeed',
  'facilityCode',
  'failure',
  'failureFromResponse',
  'fingerprint',
  'formatRfc5424',
  'formatText',
  'isRetryable',
  'isSecretField',
  'normaliseAlert',
  'octetCountingFrame',
  'otxFeed',
  'parseBody',
  'parseSize',
  'quotaFor',
  'redactSecrets',
  'redactText',
  'retryAfter',
  'retryDelay',
  'runConfigCommand',
  'streamScouts',
  'syslogSeverity',
  'systemClock',
  'urlhausFeed',
  'virustotalFeed',
  'withCategory',
  'writeFileAtomic',
];

describe("core's subpath entries", () => {
  it('@threatlib/core/integration has the contract helpers an integration package uses', () => {
    expect(Object.keys(integration)).toEqual(expect.arrayContaining(INTEGRATION_VALUES));
    expect(Object.entries(integration).filter(([, value]) => value === undefined)).toEqual([]);
  });

  it('@threatlib/core/testing has the compliance suites and the hand-moved clock tests share', async () => {
    expect(Object.keys(testing).sort()).toEqual(['ManualClock', 'alertStoreCompliance']);
    const clock = new testing.ManualClock(1_000);
    await clock.advance(500);
    expect(clock.now()).toBe(1_500);
  });
});
