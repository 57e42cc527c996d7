// The checks of every-option.test.ts for which feeds are asked and how their answers are weighed: `sources`,
// `strategy`, `thresholds`, `apiKeys`, `warninglists` and `correlation`.
import { IP } from '../option-checks.test-suite.js';
import { type Check, effect } from './check.test-suite.js';
import {
  h,
  limits,
  listFile,
  PRIVATE_IP,
  probeCalls,
  START,
  slowProbe,
  statuses,
  verdict,
} from './world.test-suite.js';

const CUSTOM = { strategy: 'custom', thresholds: { confidence: 0.5, consensus: 1, riskScore: 1 } };

const WARNINGLIST = listFile(
  'warninglist.json',
  JSON.stringify({ name: 'probe warninglist', type: 'cidr', list: [`${IP}/32`] }),
);

/** One check per option of `sources`, `strategy`, `thresholds`, `apiKeys`, `warninglists` and `correlation`. */
export const LOOKUP_CHECKS: Record<string, Check> = {
  sources: effect({ sources: ['feed_urls'] }, async (c) => h.client(c).client.sources),
  strategy: effect({ strategy: 'aggressive' }, async (c) => (await verdict(c)).isThreat),
  'thresholds.confidence': effect(
    { thresholds: { confidence: 0.95 } },
    async (c) => (await verdict(c)).isThreat,
    CUSTOM,
  ),
  'thresholds.consensus': effect({ thresholds: { consensus: 3 } }, async (c) => (await verdict(c)).isThreat, CUSTOM),
  'thresholds.riskScore': effect({ thresholds: { riskScore: 10 } }, async (c) => (await verdict(c)).isThreat, CUSTOM),
  'thresholds.correlationWeight': effect(
    { thresholds: { correlationWeight: 4 } },
    async (c) => (await verdict(c, 0.5)).riskScore,
    CUSTOM,
  ),

  'apiKeys.*': effect({ apiKeys: { feed_probe: 'probe-key-1' } }, async (c) => (await probeCalls(c))[0]?.apiKey),
  'apiKeys.*.key': effect(
    { apiKeys: { feed_probe: { key: 'probe-key-2' } } },
    async (c) => (await probeCalls(c))[0]?.apiKey,
  ),
  'apiKeys.*.endpoint': effect(
    { apiKeys: { feed_probe: { endpoint: 'https://mirror.example/api' } } },
    async (c) => (await probeCalls(c))[0]?.endpoint,
  ),
  'apiKeys.*.rateLimit': effect({ apiKeys: { feed_probe: { rateLimit: 7 } } }, async (c) => limits(c)),
  'apiKeys.*.timeout': effect({ apiKeys: { feed_probe: { timeout: 20 } } }, async (c) => statuses(c, slowProbe(150))),
  'apiKeys.*.categories': effect(
    { apiKeys: { feed_probe: { categories: [14, 18] } } },
    async (c) => (await probeCalls(c))[0]?.options,
  ),

  'warninglists.builtin': effect(
    { warninglists: { builtin: false } },
    async (c) => (await probeCalls(c, PRIVATE_IP)).length,
  ),
  'warninglists.files': effect({ warninglists: { files: [WARNINGLIST] } }, async (c) => (await probeCalls(c)).length),

  'correlation.weights': effect(
    { correlation: { weights: { feed_probe: 0.9 } } },
    async (c) => (await verdict(c)).contributions,
  ),
  'correlation.recencyHalfLifeDays': effect(
    { correlation: { recencyHalfLifeDays: 30 } },
    async (c) => (await verdict(c, 0.8, { lastSeen: new Date(START - 200 * 86_400_000).toISOString() })).contributions,
  ),
};
