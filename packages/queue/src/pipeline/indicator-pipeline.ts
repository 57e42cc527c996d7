import {
  type AlertDelivery,
  type CorrelationResult,
  InvalidIndicatorError,
  type ProcessedMessage,
  type ScoutOptions,
  streamEventFor,
} from '@threatlib/core';
import type { AlertStore } from '@threatlib/core/integration';
import { QueueError } from '../errors/queue-error.js';
import { UnprocessableMessageError } from '../errors/unprocessable-message-error.js';
import { HEADERS } from '../message/headers.js';
import type { MessageHandler } from '../message/queue-message.js';
import type { MessageQueueProcessor } from '../message-queue-processor.js';
import { readIndicatorRequest } from './indicator-request.js';
import { threatAlertRecord } from './threat-alert-record.js';

/** The part of `ThreatClient` the pipeline uses. */
export interface PipelineClient {
  correlate(indicator: string, options?: ScoutOptions): Promise<CorrelationResult>;
  /** `client.alerts`: its `deliveryOf` is what the pipeline waits on with {@link PipelineOptions.alertsDeliveredAs}. */
  readonly alerts?: AlertStore;
}

/** How {@link createIndicatorPipeline} treats threats. */
export interface PipelineOptions {
  /** The clock of `processedAt` and of the alert's time (default: `Date.now`). */
  now?: () => number;
  /**
   * The name the client delivers its alerts to this processor under (the integration's: `messageQueue`). The alert
   * the client raises for a threat, delivered by the integration's `sendAlert`, is then the one alert message, and
   * the pipeline acknowledges a threat only once that delivery ended `delivered`. Without it (the processor on its
   * own), the pipeline publishes the alert record itself.
   */
  alertsDeliveredAs?: string;
}

type DeliveryOf = (correlation: object, integration: string) => Promise<AlertDelivery | undefined>;

/**
 * The handler of the default pipeline: reads `{indicator, type}` (`type` any name core accepts, `ip` included), scans
 * it (`client.correlate`: every source's result and the verdict in one pass) and writes `{indicator, results,
 * processedAt}` to the processed queue or topic. When the correlation says threat:
 *
 * - RabbitMQ: one `Alert` record (core's `AlertSchema`) on the alerts queue. With `alertsDeliveredAs`, that is the
 *   client's own alert (stored in `client.alerts`, deduplicated within `alerting.dedupeWindowMs`), and the message is
 *   acknowledged only once its delivery to the queue ended `delivered`: a failed one throws, so the message is tried
 *   again and raises it again. Without it, the pipeline publishes the alert (the webhook-handler form
 *   `{title, indicator, correlation}`, normalised by core) itself.
 * - Kafka: the stream event `{indicator, threatLevel, sources, timestamp}` to the threats topic. With
 *   `alertsDeliveredAs`, the client's alert reaches the alerts topic through the integration's `sendAlert`, and the
 *   message's offset is committed only once that delivery ended `delivered` (a failed one throws, as for RabbitMQ).
 *
 * A malformed message throws {@link UnprocessableMessageError}, so it is dead-lettered with the reason; any other
 * failure (a broker not confirming, an alert not delivered) is retried.
 *
 * @example
 * ```ts
 * // The processor on its own (not registered on the client): the pipeline publishes each threat's alert itself.
 * await processor.consume('iocs', createIndicatorPipeline(client, processor));
 * ```
 */
export function createIndicatorPipeline(
  client: PipelineClient,
  processor: MessageQueueProcessor,
  options: PipelineOptions | (() => number) = {},
): MessageHandler {
  const { now = Date.now, alertsDeliveredAs } = typeof options === 'function' ? { now: options } : options;
  let deliveryOf: DeliveryOf | undefined;
  if (alertsDeliveredAs !== undefined) {
    const alerts = client.alerts as { deliveryOf?: DeliveryOf } | undefined;
    if (typeof alerts?.deliveryOf !== 'function') {
      throw new TypeError(
        'createIndicatorPipeline: alertsDeliveredAs needs the client whose alerts are delivered to the processor (client.alerts.deliveryOf is missing)',
      );
    }
    deliveryOf = alerts.deliveryOf.bind(alerts);
  }
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
    const processed: ProcessedMessage = {
      indicator: correlation.indicator,
      results: correlation.results,
      processedAt: new Date(at).toISOString(),
    };
    // The result answers the message it was made from by its messageId (the same id): no headers table to encode.
    const published = processor.publish(
      destinations.processed,
      processed,
      message.id ? { key: correlation.indicator, messageId: message.id } : { key: correlation.indicator },
    );
    if (!correlation.isThreat) return published;
    // With alertsDeliveredAs, the client's own alert for this threat goes out through the integration's sendAlert.
    const alertDelivered =
      deliveryOf && alertsDeliveredAs !== undefined
        ? deliveryOf(correlation, alertsDeliveredAs).then((delivery) => {
            // Undefined: no alert for this threat (alerting off, below minSeverity, a duplicate already delivered).
            if (delivery !== undefined && delivery.status !== 'delivered') {
              const kafka = processor.options.type === 'kafka';
              const alerts = kafka
                ? (processor as MessageQueueProcessor<'kafka'>).options.topics.alerts
                : destinations.threats;
              throw new QueueError(
                processor.options.type,
                'publish',
                `The alert for ${correlation.indicator} did not reach the alerts ${kafka ? 'topic' : 'queue'} "${alerts}" ` +
                  `(${delivery.status} after ${delivery.attempts} attempt(s)${delivery.lastError ? `: ${delivery.lastError}` : ''}); ` +
                  'the message is tried again',
                { destination: alerts },
              );
            }
          })
        : undefined;
    if (processor.options.type === 'kafka') {
      await Promise.all([
        published,
        (processor as MessageQueueProcessor<'kafka'>).produce(destinations.threats, {
          key: correlation.indicator,
          value: streamEventFor(correlation, at),
        }),
        alertDelivered,
      ]);
      return;
    }
    if (alertDelivered) {
      await Promise.all([published, alertDelivered]);
      return;
    }
    const alert = threatAlertRecord(correlation, new Date(at));
    await Promise.all([
      published,
      processor.publish(destinations.threats, alert, {
        key: alert.id,
        messageId: alert.id,
        // The alert's messageId is its own id: the message it was raised for is named in a header.
        ...(message.id ? { headers: { [HEADERS.sourceId]: message.id } } : {}),
      }),
    ]);
  };
}
