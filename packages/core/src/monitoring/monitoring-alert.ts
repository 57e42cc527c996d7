/** What a monitoring alert is about: a feed's circuit breaker opened, or a feed refused its API key. */
export type MonitoringCondition = 'breaker_open' | 'key_rejected';

/**
 * An alert about the client's own operation (not a threat: those are `Alert`s in the alert store). Built from feed
 * ids, states and messages threatlib writes itself, then scrubbed of every secret the configuration holds: it never
 * carries an API key, a password, a header value or an indicator.
 */
export interface MonitoringAlert {
  condition: MonitoringCondition;
  /** Feed id (`feed_otx`). */
  feed: string;
  /** ISO 8601, from the client's clock. */
  at: string;
  /** One line saying what happened (the e-mail subject, after `[threatlib] `). */
  summary: string;
  /** What to do about it. */
  action: string;
  /** Structured detail: HTTP status, breaker state, next trial, the failure that opened the breaker. */
  details: Record<string, string | number>;
}

/** Counters of the monitoring alerts a client raised, by outcome and channel. */
export interface MonitoringAlertStats {
  /** Alerts raised (after the cooldown let them through). */
  raised: number;
  /** Alerts not sent because the same feed and condition was alerted on within `cooldownMs`. */
  suppressed: number;
  /** Per channel (`email`, `webhook`): deliveries that succeeded and that failed. */
  channels: Record<string, { sent: number; failed: number }>;
}

/** The plain-text e-mail for an alert: a subject naming the feed and condition, and a body with its details. */
export function alertEmail(alert: MonitoringAlert): { subject: string; text: string } {
  const { feedName, ...details } = alert.details;
  const lines = [
    alert.summary,
    '',
    alert.action,
    '',
    `Feed: ${feedName ? `${feedName} (${alert.feed})` : alert.feed}`,
    `Condition: ${alert.condition}`,
    `At: ${alert.at}`,
    ...Object.entries(details).map(([name, value]) => `${name}: ${value}`),
    '',
    '-- threatlib monitoring (enterprise.monitoring.alerts)',
  ];
  return { subject: `[threatlib] ${alert.summary}`, text: `${lines.join('\n')}\n` };
}

/** The JSON body a webhook receives for an alert. */
export function alertWebhookBody(alert: MonitoringAlert): string {
  return JSON.stringify({ type: 'threatlib.monitoring.alert', version: 1, ...alert });
}
