import { afterAll, describe } from 'vitest';
import { cacheComplianceSuite } from '../cache/cache.test-suite.js';
import { describeWithRedis, E2E_REDIS, uniquePrefix } from '../cache/redis-e2e.test-suite.js';
import { silentLogger } from '../logging/logger.js';
import { systemClock } from '../scheduler/clock.js';
import { ClusterCache } from './cluster-cache.js';
import { ClusterConnection } from './cluster-connection.js';

describeWithRedis('cache compliance: the cluster verdict cache', () => {
  const connections: ClusterConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  });
  describe('on the e2e Redis', () =>
    cacheComplianceSuite('cluster', async (options) => {
      const connection = new ClusterConnection({
        ...E2E_REDIS,
        db: 0,
        keyPrefix: uniquePrefix('cluster-cache'),
        commandTimeout: 2000,
        clock: systemClock,
        logger: silentLogger,
        onState: () => undefined,
      });
      connections.push(connection);
      await connection.start();
      let now = Date.parse('2025-06-01T12:00:00Z');
      const cache = new ClusterCache(connection, { compression: options?.compression ?? false, now: () => now });
      return {
        // The connection is the cluster's, closed by the client after the cache: here, by the cache's close.
        cache: {
          kind: cache.kind,
          get: (key) => cache.get(key),
          set: (key, value, ttl) => cache.set(key, value, ttl),
          delete: (key) => cache.delete(key),
          clear: () => cache.clear(),
          close: async () => {
            await cache.close();
            await connection.close();
          },
        },
        advance: (ms: number) => {
          now += ms;
        },
      };
    }));
});
