import { connect } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** The RabbitMQ that `bash e2e/services up rabbitmq` starts (e2e/services.d/rabbitmq.sh). */
export const E2E_RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
/** The Kafka that `bash e2e/services up kafka` starts (e2e/services.d/kafka.sh). */
export const E2E_KAFKA_BROKERS = ['127.0.0.1:9092'];

const PORTS = { rabbitmq: 5672, kafka: 9092 } as const;

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

const reachable = {
  rabbitmq: await portOpen(PORTS.rabbitmq),
  kafka: await portOpen(PORTS.kafka),
};

/**
 * `describe` for tests that need a real broker. When it is unreachable they are skipped, with the reason as the
 * skipped test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithBroker(broker: 'rabbitmq' | 'kafka', title: string, body: () => void): void {
  describe(title, () => {
    const where = `127.0.0.1:${PORTS[broker]}`;
    if (!reachable[broker] && !process.env.THREATLIB_E2E) {
      it.skip(
        `needs ${broker} at ${where} (start it with: bash e2e/services up ${broker}; THREATLIB_E2E=1 makes this fail instead)`,
      );
      return;
    }
    beforeAll(() => {
      if (!reachable[broker]) {
        throw new Error(
          `THREATLIB_E2E is set but ${broker} at ${where} does not answer; run: bash e2e/services up ${broker}`,
        );
      }
    });
    body();
    afterAll(() => undefined);
  });
}

let names = 0;

/** A queue or topic name no other test, run or process uses. */
export function uniqueName(label: string): string {
  names += 1;
  return `threatlib-test.${label}.${process.pid}-${Date.now().toString(36)}-${names}`;
}

/**
 * Collects what handlers see and lets a test wait for a condition on it, with a deadline that fails the test
 * instead of hanging it (no fixed sleeps: the wait ends as soon as the condition holds).
 */
export class Collector<T> {
  readonly items: T[] = [];
  #waiters: Array<() => void> = [];

  push(item: T): void {
    this.items.push(item);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once `condition(items)` holds; rejects after `timeout` ms saying what was collected. */
  async until(condition: (items: T[]) => boolean, what: string, timeout = 30_000): Promise<T[]> {
    const deadline = Date.now() + timeout;
    while (!condition(this.items)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeout} ms waiting for ${what} (have ${this.items.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.items;
  }
}

/** A promise with its resolve function outside, for a handler a test releases when it chooses. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Resolves once `condition()` holds (checked every 10 ms); rejects after `timeout` ms naming `what`. */
export async function eventually(condition: () => boolean, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
