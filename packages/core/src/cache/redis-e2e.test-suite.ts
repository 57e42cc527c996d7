import { connect } from 'node:net';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** The Redis that `bash e2e/services up redis` starts (e2e/services.d/redis.sh). */
export const E2E_REDIS = { host: '127.0.0.1', port: 16379 } as const;

/** Every key a test writes starts with this, so one run's leftovers are easy to find and remove. */
const TEST_PREFIX_ROOT = `threatlib-test:${process.pid}-${Date.now()}:`;

let prefixes = 0;

/** A key prefix no other test (in this run or another) uses. */
export function uniquePrefix(label: string): string {
  prefixes += 1;
  return `${TEST_PREFIX_ROOT}${label}-${prefixes}:`;
}

/** Whether the e2e Redis answers PING, found once per test file with a plain socket (no client, no retries). */
const reachable = await new Promise<boolean>((resolve) => {
  const socket = connect(E2E_REDIS);
  const done = (answer: boolean) => {
    socket.destroy();
    resolve(answer);
  };
  socket.setTimeout(1000, () => done(false));
  socket.once('error', () => done(false));
  socket.once('connect', () => socket.write('PING\r\n'));
  socket.once('data', (data) => done(data.toString('latin1').startsWith('+PONG')));
});

/** A plain node-redis client on the e2e Redis, for looking behind a cache's back (PTTL, raw values). */
export type AdminClient = ReturnType<typeof createClient>;

/**
 * `describe` for tests that need the e2e Redis. When it is unreachable they are skipped, with the reason as the
 * skipped test's name, if `THREATLIB_E2E` is unset, and they fail, loudly, if it is set: a CI run that was meant to
 * test Redis must not pass without it. `body` gets an admin client; every key under `TEST_PREFIX_ROOT` is removed
 * after the block.
 */
export function describeWithRedis(title: string, body: (admin: () => AdminClient) => void): void {
  describe(title, () => {
    const where = `${E2E_REDIS.host}:${E2E_REDIS.port}`;
    if (!reachable && !process.env.THREATLIB_E2E) {
      it.skip(
        `needs Redis at ${where} (start it with: bash e2e/services up redis; THREATLIB_E2E=1 makes this fail instead)`,
      );
      return;
    }
    let admin: AdminClient | undefined;
    beforeAll(async () => {
      if (!reachable) {
        throw new Error(`THREATLIB_E2E is set but Redis at ${where} does not answer; run: bash e2e/services up redis`);
      }
      admin = createClient({ socket: { ...E2E_REDIS, reconnectStrategy: false } });
      admin.on('error', () => undefined);
      await admin.connect();
    });
    afterAll(async () => {
      if (!admin) return;
      for await (const keys of admin.scanIterator({ MATCH: `${TEST_PREFIX_ROOT}*`, COUNT: 500 })) {
        if (keys.length > 0) await admin.unlink(keys);
      }
      await admin.close();
    });
    body(() => {
      if (!admin) throw new Error('the admin client is not connected');
      return admin;
    });
  });
}
