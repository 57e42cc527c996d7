// The checks of every-option.test.ts for `cluster`: sharing state with other clients through Redis.
import { E2E_REDIS, uniquePrefix } from '../../cache/redis-e2e.test-suite.js';
import { configWith } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect } from './check.test-suite.js';
import { dead, h, removeKeys, resp, silent } from './world.test-suite.js';

const REDIS_CLUSTER_A = uniquePrefix('every-option-cluster-db');
const REDIS_CLUSTER_B = uniquePrefix('every-option-cluster-prefix');
const REDIS_CLUSTER_C = uniquePrefix('every-option-cluster-other-prefix');

/** The `clusterDegraded` events of a client that starts and stops (its Redis unreachable or silent). */
async function clusterDegraded(config: ThreatConfig) {
  const { client } = h.client(config);
  const events: unknown[] = [];
  client.on('clusterDegraded', (event) =>
    events.push({ ...event, reason: event.reason.replace(/:\d{4,5}\b/g, ':PORT') }),
  );
  await client.start();
  await client.stop();
  return events;
}

/** Which of `prefixes` hold keys in databases 0 and 5 after a cluster client started and stopped (then removed). */
async function clusterKeys(config: ThreatConfig, prefixes: string[]): Promise<Record<string, string[]>> {
  const { client } = h.client(config);
  await client.start();
  await client.stop();
  return removeKeys(prefixes);
}

/** One check per option of `cluster`. */
export const CLUSTER_CHECKS: Record<string, Check> = {
  'cluster.enabled': effect(
    { cluster: { enabled: true } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { kvserver: { port: dead } },
    }),
  ),
  'cluster.expectedPeers': effect(
    { cluster: { expectedPeers: 3 } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: dead } },
    }),
  ),
  'cluster.commandTimeout': effect(
    { cluster: { commandTimeout: 300 } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: silent.port } },
    }),
  ),
  'cluster.kvserver.host': effect(
    { cluster: { kvserver: { host: 'localhost' } } },
    (c) => clusterDegraded(c),
    () => ({
      cluster: { enabled: true, kvserver: { port: dead } },
    }),
  ),
  'cluster.kvserver.port': effect(
    { cluster: { kvserver: { port: E2E_REDIS.port } } },
    (c) => clusterDegraded(c),
    () => ({ cluster: { enabled: true, kvserver: { port: dead } } }),
    'redis',
  ),
  'cluster.kvserver.password': effect(
    { cluster: { kvserver: { password: 'cluster-password-sent-at-connect' } } },
    async (c) => {
      resp.received = '';
      await clusterDegraded(configWith(c, { cluster: { kvserver: { port: resp.port } } }));
      return resp.received.includes('cluster-password-sent-at-connect');
    },
    { cluster: { enabled: true } },
  ),
  'cluster.kvserver.db': effect(
    { cluster: { kvserver: { db: 5 } } },
    async (c) => clusterKeys(c, [REDIS_CLUSTER_A]),
    { cluster: { enabled: true, kvserver: { ...E2E_REDIS, keyPrefix: REDIS_CLUSTER_A } } },
    'redis',
  ),
  'cluster.kvserver.keyPrefix': effect(
    { cluster: { kvserver: { keyPrefix: REDIS_CLUSTER_C } } },
    async (c) => clusterKeys(c, [REDIS_CLUSTER_B, REDIS_CLUSTER_C]),
    { cluster: { enabled: true, kvserver: { ...E2E_REDIS, keyPrefix: REDIS_CLUSTER_B } } },
    'redis',
  ),
};
