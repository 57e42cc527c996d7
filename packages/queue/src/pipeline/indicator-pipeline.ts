import {
  type CorrelationResult,
  flaggedBy,
  InvalidIndicatorError,
  type ProcessedMessage,
  type ScoutOptions,
  streamEventFor,
} from '@threatlib/core';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { HEADERS } from '../message/headers.js';
import type { MessageHandler } from '../message/queue-message.js';
import type { MessageQueueProcessor } from '../message-queue-processor.js';
import { readIndicatorRequest } from './indicator-request.js';

/** The part of `ThreatClient` the pipeline uses. */
export interface PipelineClient {
  correlate(indicator: string, options?: ScoutOptions): Promise<CorrelationResult>;
}

/** What the pipeline writes to the RabbitMQ alerts queue for a threat. */
export interface ThreatAlertMessage {
  indicator: string;
  type: CorrelationResult['type'];
  verdict: CorrelationResult['verdict'];
  riskScore: number;
  confidence: number;
  consensus: number;
  /** Sources that said malicious or suspicious. */
  sources: string[];
  /** ISO 8601. */
  detectedAt: string;
}

/**
 * The handler of the default pipeline: reads `{indicator, type}` (`type` any name core accepts, `ip` included), scans it (`client.correlate`: every source's
 * result and the verdict in one pass), writes `{indicator, results, processedAt}` to the processed queue or topic,
 * and, when the correlation says threat, an alert to the RabbitMQ alerts queue or a stream event
 * `{indicator, threatLevel, sources, timestamp}` to the Kafka threats topic. A malformed message throws {@link UnprocessableMessageError}, so it is dead-lettered with the reason;
 * any other failure (a broker not confirming) is retried.
 */
export function createIndicatorPipeline(
  client: PipelineClient,
  processor: MessageQueueProcessor,
  now: () => number = Date.now,
): MessageHandler {
  const destinations =
    processor.options.type === 'rabbitmq'
      ? { processed: processor.options.queues.processed, threats: processor.options.queues.alerts }
      : { processed: processor.options.topics.processed, threats: processor.options.topics.threats };
  return async (message) => {
    const request = readIndicatorRequest(message);
    let correlation: CorrelationResult;
    try {
      correlation = await client.correlate(request.indicator, request.type ? { type: request.type } : {});
    } catch (error) {
      if (InvalidIndicatorError.isInstance(error)) {
        throw new UnprocessableMessageError(error.message, { cause: error });
      }
      throw error;
    }
    const at = now();
    const headers = message.id ? { [HEADERS.sourceId]: message.id } : undefined;
    const processed: ProcessedMessage = {
      indicator: correlation.indicator,
      results: correlation.results,
      processedAt: new Date(at).toISOString(),
    };
    const writes = [
      processor.publish(destinations.processed, processed, {
        key: correlation.indicator,
        ...(headers ? { headers } : {}),
        ...(message.id ? { messageId: message.id } : {}),
      }),
    ];
    if (correlation.isThreat) {
      if (processor.options.type === 'kafka') {
        writes.push(
          (processor as MessageQueueProcessor<'kafka'>).produce(destinations.threats, {
            key: correlation.indicator,
            value: streamEventFor(correlation, at),
          }),
        );
      } else {
        const alert: ThreatAlertMessage = {
          indicator: correlation.indicator,
          type: correlation.type,
          verdict: correlation.verdict,
          riskScore: correlation.riskScore,
          confidence: correlation.confidence,
          consensus: correlation.consensus,
          sources: flaggedBy(correlation),
          detectedAt: new Date(at).toISOString(),
        };
        writes.push(
          processor.publish(destinations.threats, alert, {
            ...(headers ? { headers } : {}),
            ...(message.id ? { messageId: message.id } : {}),
          }),
        );
      }
    }
    await Promise.all(writes);
  };
}
