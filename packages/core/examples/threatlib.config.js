// Example threatlib configuration: one object per profile. Pick one with
//   loadConfig({ profile: 'production' })  or  THREATLIB_PROFILE=production
// API keys never live in this file: set THREATLIB_FEED_<FEED>_API_KEY in the environment (or use the vault).
// Precedence, lowest first: schema defaults, this profile, environment variables, the ThreatClient constructor.

/** @type {Record<string, import('@threatlib/core').ThreatConfig>} */
export default {
  // Local work: only URLhaus, which needs no key; plain-HTTP mirrors allowed; nothing cached; verbose logs.
  development: {
    sources: ['feed_urls'],
    // One source: only a strategy that needs one agreeing source can conclude a threat with it.
    strategy: 'aggressive',
    security: { enforceHttps: false, autoLock: false },
    logging: { level: 'debug' },
    caching: { enabled: false },
  },

  // A service asking every feed; keys come from THREATLIB_FEED_*_API_KEY.
  production: {
    sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
    strategy: 'defensive',
    security: { enforceHttps: true, autoLock: true, lockTimeout: 300000, enableAuditLog: true },
    performance: { maxConcurrency: 10, requestTimeout: 30000, retryAttempts: 3 },
    caching: { enabled: true, type: 'memory', ttl: 3600000, maxSize: 10000 },
    logging: { level: 'info', format: 'json' },
  },

  // A SOC with its own thresholds: at least 3 agreeing sources, confidence 0.6, risk score 4 or more.
  enterprise: {
    sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
    strategy: 'custom',
    thresholds: { confidence: 0.6, consensus: 3, riskScore: 4 },
    security: {
      enforceHttps: true,
      autoLock: true,
      enableAuditLog: true,
      encryption: { keyDerivation: 'argon2id' },
      memoryProtection: { secureErase: true, obfuscateKeys: true },
    },
    performance: { maxConcurrency: 20, requestTimeout: 30000, circuitBreaker: { failureThreshold: 5 } },
    caching: {
      enabled: true,
      type: 'kvserver',
      ttl: 3600000,
      compression: true,
      kvserver: { host: '127.0.0.1', port: 6379 },
    },
    logging: { level: 'info', format: 'structured' },
    enterprise: {
      streamProcessing: { enabled: true, batchSize: 100, flushInterval: 1000 },
      monitoring: { healthChecks: true, metrics: true },
    },
  },
};
