import { silentLogger } from '@threatlib/core';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { describeWithBroker, E2E_KAFKA_BROKERS } from '../test-support/brokers.js';
import { deleteKafkaTopics } from '../test-support/cleanup.js';
import { queueComplianceSuite } from './queue.test-suite.js';

describeWithBroker('kafka', 'MessageQueueProcessor on Kafka (compliance)', () => {
  queueComplianceSuite({
    broker: 'kafka',
    create: (retry) =>
      new MessageQueueProcessor(
        { type: 'kafka', brokers: E2E_KAFKA_BROKERS, prefetch: 10, drainTimeout: 500, sessionTimeout: 6000, ...retry },
        { logger: silentLogger },
      ),
    cleanup: deleteKafkaTopics,
  });
});
