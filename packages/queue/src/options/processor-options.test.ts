import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { parseProcessorOptions } from './processor-options.js';

function errorOf(input: unknown, where?: string): ConfigurationError {
  try {
    parseProcessorOptions(input, where);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the options to be refused');
}

describe('processor options', () => {
  it('fills in the RabbitMQ defaults', () => {
    expect(parseProcessorOptions({ type: 'rabbitmq' })).toMatchObject({
      connection: 'amqp://127.0.0.1:5672',
      queues: { incoming: 'threatlib.indicators', processed: 'threatlib.processed', alerts: 'threatlib.alerts' },
      prefetch: 20,
      maxAttempts: 5,
      retryDelay: 1000,
    });
  });

  it('accepts the Kafka brokers as `connection: {brokers}`, as the client configuration examples write them', () => {
    const options = parseProcessorOptions({ type: 'kafka', connection: { brokers: ['127.0.0.1:9092'] } });
    expect(options).toMatchObject({ type: 'kafka', brokers: ['127.0.0.1:9092'], groupId: 'threatlib' });
  });

  it('names every bad option with its path, under the prefix given', () => {
    const error = errorOf(
      { type: 'rabbitmq', connection: 'http://x', prefetch: 0, queues: { incoming: '' }, colour: 'red' },
      'integrations.messageQueue',
    );
    expect(error.message).toMatch(/^Configuration invalid: /);
    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'integrations.messageQueue.colour',
      'integrations.messageQueue.connection',
      'integrations.messageQueue.prefetch',
      'integrations.messageQueue.queues.incoming',
    ]);
    expect(error.message).toContain('integrations.messageQueue.connection: expected an AMQP URL');
    expect(error.message).toContain('integrations.messageQueue.colour: unknown option');
  });

  it('refuses an unknown broker and a Kafka without brokers, saying what is expected', () => {
    expect(errorOf({ type: 'sqs' }).message).toBe('Configuration invalid: type: expected type "rabbitmq" or "kafka"');
    expect(errorOf({ type: 'kafka' }).message).toMatch(/brokers: expected the brokers as \["host:port", \.\.\.\]/);
    expect(errorOf({ type: 'kafka', brokers: ['nohost'] }).message).toMatch(/brokers\.0: expected "host:port"/);
  });

  it('refuses durations in the wrong unit, saying what was meant', () => {
    expect(errorOf({ type: 'rabbitmq', heartbeat: 10_000 }).message).toBe(
      'Configuration invalid: heartbeat: heartbeat is in seconds, at most 600 (10 minutes); got 10000 (did you mean 10?)',
    );
    expect(errorOf({ type: 'rabbitmq', publishTimeout: 30 }).message).toBe(
      'Configuration invalid: publishTimeout: publishTimeout is in milliseconds, at least 100; got 30 (did you mean 30000?)',
    );
    expect(errorOf({ type: 'kafka', brokers: ['127.0.0.1:9092'], sessionTimeout: 10 }).message).toBe(
      'Configuration invalid: sessionTimeout: sessionTimeout is in milliseconds, at least 1000; got 10 (did you mean 10000?)',
    );
  });
});
