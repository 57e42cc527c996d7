import { silentLogger } from '@threatlib/core';
import { MessageQueueProcessor } from '../message-queue-processor.js';
import { describeWithBroker, E2E_RABBITMQ_URL } from '../test-support/brokers.js';
import { deleteRabbitQueues } from '../test-support/cleanup.js';
import { queueComplianceSuite } from './queue.test-suite.js';

describeWithBroker('rabbitmq', 'MessageQueueProcessor on RabbitMQ (compliance)', () => {
  queueComplianceSuite({
    broker: 'rabbitmq',
    create: (retry) =>
      new MessageQueueProcessor(
        { type: 'rabbitmq', connection: E2E_RABBITMQ_URL, prefetch: 10, drainTimeout: 500, ...retry },
        { logger: silentLogger },
      ),
    cleanup: deleteRabbitQueues,
  });
});
