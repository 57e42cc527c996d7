export { QueueError, type QueueOperation } from './errors/queue-error.js';
export { UnprocessableMessageError } from './errors/unprocessable-message-error.js';
export {
  createMessageQueueIntegration,
  MessageQueueIntegration,
  registerMessageQueue,
} from './integration/queue-integration.js';
export { type BatchingOptions, ProduceBatcher } from './kafka/produce-batcher.js';
export type { PublishOptions, QueueStats, Subscription } from './message/backend.js';
export { HEADERS } from './message/headers.js';
export type { MessageHandler, QueueMessage } from './message/queue-message.js';
export {
  type BrokerType,
  MessageQueueProcessor,
  type ProcessorRuntime,
  type StreamRecord,
} from './message-queue-processor.js';
export {
  type KafkaOptions,
  type MessageQueueOptions,
  parseProcessorOptions,
  type RabbitMqOptions,
  type ResolvedKafkaOptions,
  type ResolvedQueueOptions,
  type ResolvedRabbitMqOptions,
} from './options/processor-options.js';
export {
  createIndicatorPipeline,
  type PipelineClient,
  type PipelineOptions,
} from './pipeline/indicator-pipeline.js';
export { readIndicatorRequest } from './pipeline/indicator-request.js';
