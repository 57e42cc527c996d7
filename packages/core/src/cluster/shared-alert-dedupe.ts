import { sha256Hex } from '../cache/sha256.js';
import type { ClusterConnection } from './cluster-connection.js';

/**
 * The alert deduplication of a cluster: an indicator concluded a threat by any client within
 * `alerting.dedupeWindowMs` raises no second alert on another. The first to conclude it sets a key for the window
 * (`SET NX PX`); the others find it set. While Redis cannot be reached, each client deduplicates for itself (the
 * alert is raised rather than lost).
 */
export class SharedAlertDedupe {
  readonly #connection: ClusterConnection;

  constructor(connection: ClusterConnection) {
    this.#connection = connection;
  }

  /** Whether `key` may raise an alert now (and is remembered for `windowMs`); true when Redis cannot say. */
  async admit(key: string, windowMs: number): Promise<boolean> {
    if (windowMs <= 0 || !this.#connection.up) return true;
    try {
      const set = await this.#connection.run('SET NX alert', (redis) =>
        redis.set(this.#key(key), String(this.#connection.now()), {
          condition: 'NX',
          expiration: { type: 'PX', value: windowMs },
        }),
      );
      return set === 'OK';
    } catch {
      return true;
    }
  }

  /** Forgets `key` for every client: its alert did not reach every integration, so the next conclusion raises it. */
  forget(key: string): void {
    if (!this.#connection.up) return;
    void this.#connection.run('DEL alert', (redis) => redis.del(this.#key(key))).catch(() => undefined);
  }

  #key(key: string): string {
    return `${this.#connection.keyPrefix}al:${sha256Hex(key)}`;
  }
}
