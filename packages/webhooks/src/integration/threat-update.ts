import { type IndicatorTypeName, isIndicatorTypeName, parseRecord, severityForRiskScore } from '@threatlib/core';
import {
  confidenceSchema,
  type IntegrationClient,
  type IntegrationContext,
  severityRank,
} from '@threatlib/core/integration';
import { z } from 'zod';
import { THREAT_UPDATE_EVENT } from '../events/documented-events.js';
import type { WebhookManager } from '../manager/webhook-manager.js';

/** `integrations.webhooks.incoming.threatUpdate`: the built-in handler of `threat-update`. */
export const ThreatUpdateOptionsSchema = z.strictObject({
  /** Run the built-in handler (default true); false leaves `threat-update` to handlers you register. */
  enabled: z.boolean().default(true),
  /** An alert is raised when the correlation's confidence is greater than this (0 to 100, default 80). */
  minConfidence: confidenceSchema('minConfidence').default(80),
  /** Title of the alerts raised (default `Threat update`). */
  title: z.string().min(1).max(500).default('Threat update'),
});

/** {@link ThreatUpdateOptionsSchema} with its defaults filled in. */
export type ThreatUpdateOptions = z.output<typeof ThreatUpdateOptionsSchema>;

/**
 * The data of a `threat-update`: `indicator`, and optionally its `type` (`domain`, `ip` or any precise type core
 * knows; detected when absent). Anything else in it is ignored.
 */
export const ThreatUpdateDataSchema = z.looseObject({
  indicator: z.string({ error: 'required: the indicator (a string)' }).min(1).max(8192),
  type: z
    .string()
    .refine(isIndicatorTypeName, { error: 'not an indicator type threatlib knows (domain, ip, url, sha256...)' })
    .optional(),
});

/**
 * Registers the documented `threat-update` flow on `manager`: the indicator is correlated with the client's
 * `correlate`, and when the correlation's confidence is greater than `minConfidence` an alert `{title, indicator,
 * correlation}` goes through the client's alert path (`client.alerts.add`): stored and delivered to every started
 * integration, a SIEM included. Data without an indicator, or with an indicator that is not one, is answered 400
 * (the sender should not retry it).
 *
 * One threat, one alert: when the correlation concluded a threat that the client's own alerting raises an alert for
 * (`alerting.enabled`, a severity at or above `alerting.minSeverity`; or one raised for it within
 * `alerting.dedupeWindowMs`), that alert is the one, and no second is raised here.
 */
export function registerThreatUpdate(
  manager: WebhookManager,
  context: IntegrationContext,
  options: ThreatUpdateOptions,
): void {
  manager.on(THREAT_UPDATE_EVENT, async (data) => {
    const update = parseRecord(ThreatUpdateDataSchema, data, 'threat-update data');
    const correlation = await context.client.correlate(
      update.indicator,
      update.type === undefined ? {} : { type: update.type as IndicatorTypeName },
    );
    if (correlation.confidence > options.minConfidence && !raisedByClient(context.client, correlation)) {
      // The correlation as the alert keeps it: the verdict's figures and which feeds flagged what (the feed results
      // themselves are not part of an alert).
      const { indicator, type, confidence, riskScore } = correlation;
      const contributions = correlation.contributions.map(({ feed, verdict }) => ({ feed, verdict }));
      await context.client.alerts.add({
        title: options.title,
        indicator: update.indicator,
        correlation: { indicator, type, confidence, riskScore, contributions },
      });
    }
  });
}

/** Whether `client.correlate` raised (or deduplicated) an alert for this correlation by itself. */
function raisedByClient(client: IntegrationClient, correlation: { isThreat: boolean; riskScore: number }): boolean {
  const { enabled, minSeverity } = client.config.alerting;
  return (
    enabled &&
    correlation.isThreat &&
    severityRank(severityForRiskScore(correlation.riskScore)) >= severityRank(minSeverity)
  );
}
