import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as MainTypes from './index.js';
import * as main from './index.js';
import * as integration from './integration/index.js';
import * as misp from './misp-feed/index.js';
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
  'INSPECT_CUSTOM',
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
  'confidenceProblem',
  'confidenceSchema',
  'configWithSecrets',
  'createCache',
  'createHttpClient',
  'createOAuth2TokenSource',
  'crowdsecFeed',
  'durationProblem',
  'durationSchema',
  'facilityCode',
  'failure',
  'failureFromResponse',
  'fingerprint',
  'formatRfc5424',
  'formatText',
  'headerNameProblem',
  'headerValueProblem',
  'headersSchema',
  'inspectView',
  'isRetryable',
  'isSecretField',
  'loadOptionalPeers',
  'normaliseAlert',
  'octetCountingFrame',
  'otxFeed',
  'parseBody',
  'parseSize',
  'quotaFor',
  'redactSecrets',
  'redactText',
  'redactedView',
  'retryAfter',
  'retryDelay',
  'runConfigCommand',
  'shownInput',
  'streamScouts',
  'suggestOption',
  'syslogSeverity',
  'systemClock',
  'urlhausFeed',
  'virustotalFeed',
  'withCategory',
  'writeFileAtomic',
];

/** Types that moved with them: each line fails to typecheck if the main entry has that name again. */
type MovedTypes = [
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.Integration,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.IntegrationContext,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.IntegrationFactory,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.IntegrationHealth,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.AlertStore,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.CacheStore,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.Feed,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.Clock,
  // @ts-expect-error at @threatlib/core/integration
  MainTypes.HttpClient,
];

describe("core's entries", () => {
  it('the main entry keeps to what users call: what moved to a subpath is not there any more', () => {
    const moved = new Set([...INTEGRATION_VALUES, ...Object.keys(testing)]);
    expect(Object.keys(main).filter((name) => moved.has(name))).toEqual([]);
    // What users call stays (a sample of each kind).
    expect(Object.keys(main)).toEqual(
      expect.arrayContaining([
        'ThreatClient',
        'ConfigurationError',
        'MemoryAlertStore',
        'parseIndicator',
        'toStixBundle',
      ]),
    );
    expectTypeOf<MovedTypes>().toBeArray();
  });

  it('@threatlib/core/integration has the contract helpers an integration package uses', () => {
    expect(Object.keys(integration)).toEqual(expect.arrayContaining(INTEGRATION_VALUES));
    expect(Object.entries(integration).filter(([, value]) => value === undefined)).toEqual([]);
  });

  it('@threatlib/core/misp has the MISP feed reader and writers, and nothing else', () => {
    expect(Object.keys(misp).sort()).toEqual([
      'THREATLIB_MISP_NAMESPACE',
      'THREATLIB_MISP_ORG',
      'exportMispFeed',
      'loadMispFeedList',
      'toMispFeed',
    ]);
    // Nothing of it is in the main entry, which must not pull in the file system for browsers.
    expect(Object.keys(main).filter((name) => name in misp)).toEqual([]);
  });

  it('@threatlib/core/testing has the compliance suites and the hand-moved clock tests share', async () => {
    expect(Object.keys(testing).sort()).toEqual([
      'ManualClock',
      'alertStoreCompliance',
      'describeWithServices',
      'expectNoSecretIn',
      'expectNoSecretShown',
      'portOpen',
      'probeService',
    ]);
    const clock = new testing.ManualClock(1_000);
    await clock.advance(500);
    expect(clock.now()).toBe(1_500);
  });
});
