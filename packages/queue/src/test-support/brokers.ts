import { describeWithServices, probeService } from '@threatlib/core/testing';

/** The RabbitMQ that `bash e2e/services up rabbitmq` starts (e2e/services.d/rabbitmq.sh). */
export const E2E_RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
/** The Kafka that `bash e2e/services up kafka` starts (e2e/services.d/kafka.sh). */
export const E2E_KAFKA_BROKERS = ['127.0.0.1:9092'];

const PORTS = { rabbitmq: 5672, kafka: 9092 } as const;

const probed = {
  rabbitmq: await probeService({ name: 'rabbitmq', port: PORTS.rabbitmq }),
  kafka: await probeService({ name: 'kafka', port: PORTS.kafka }),
};

/**
 * `describe` for tests that need a real broker. When it is unreachable they are skipped, with the reason as the
 * skipped test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithBroker(broker: 'rabbitmq' | 'kafka', title: string, body: () => void): void {
  describeWithServices([probed[broker]], title, body);
}

let names = 0;

/** A queue or topic name no other test, run or process uses. */
export function uniqueName(label: string): string {
  names += 1;
  return `threatlib-test.${label}.${process.pid}-${Date.now().toString(36)}-${names}`;
}

/**
 * A name no other test, run or process uses and the pipeline's four topics under it: `<name>.in`, `.out`,
 * `.threats`, `.alerts` (the name is also fit for a consumer group).
 */
export function uniqueTopics(label: string): {
  name: string;
  topics: { incoming: string; processed: string; threats: string; alerts: string };
} {
  const name = uniqueName(label);
  return {
    name,
    topics: { incoming: `${name}.in`, processed: `${name}.out`, threats: `${name}.threats`, alerts: `${name}.alerts` },
  };
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
