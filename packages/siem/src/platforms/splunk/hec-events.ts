// Alerts and cases as HTTP Event Collector events: one JSON object per event, several concatenated in one request
// body (not a JSON array), each with its metadata (time, source, sourcetype, index) beside `event`.
// https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/format-events-for-http-event-collector
// Notable events: the fields Enterprise Security reads from index=notable (rule_title, rule_description, urgency,
// owner, status, security_domain); ES has no call that creates one, its notable API only updates them:
// https://help.splunk.com/splunk-enterprise-security-7/api-reference/7.2/notable-event-endpoints/notable-event-api-reference
// https://help.splunk.com/splunk-enterprise-security-7/user-guide/7.3/incident-review/how-urgency-is-assigned-to-notable-events-in-splunk-enterprise-security
import type { Alert, Case } from '@threatlib/core';
import type { SplunkOptions } from './splunk-options.js';

/** One HEC event. */
export interface HecEvent {
  /** Epoch seconds, with milliseconds as decimals. */
  time: number;
  source: string;
  sourcetype: string;
  index?: string;
  event: Record<string, unknown>;
}

/** An alert as the HEC event `sendAlerts` sends: the documented record, without the client's delivery bookkeeping. */
export function alertEvent(alert: Alert, options: SplunkOptions): HecEvent {
  const { deliveries: _deliveries, ...record } = alert;
  return {
    time: epochSeconds(alert.timestamp),
    source: options.source,
    sourcetype: options.sourcetype,
    ...(options.index === undefined ? {} : { index: options.index }),
    event: { kind: 'threatlib:alert', ...record },
  };
}

/** Splunk ES urgency of a case priority (ES has `informational` below `low`, which no case priority maps to). */
const URGENCY: Readonly<Record<Case['priority'], string>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'critical',
};

/** A case as a notable event: Enterprise Security's fields, the case's own, and the id it is found by. */
export function caseEvent(input: Case, caseId: string, now: number, options: SplunkOptions): HecEvent {
  return {
    time: Math.round(now) / 1000,
    source: options.source,
    sourcetype: options.caseSourcetype,
    index: options.caseIndex,
    event: {
      kind: 'threatlib:case',
      case_id: caseId,
      rule_name: `threatlib: ${input.title}`,
      rule_title: input.title,
      rule_description: input.description ?? '',
      security_domain: 'threat',
      urgency: URGENCY[input.priority],
      severity: input.priority,
      priority: input.priority,
      // ES status 1 is "New"; an owner ES does not know stays as given, for an analyst to reassign.
      status: '1',
      ...(input.assignee === undefined ? {} : { owner: input.assignee }),
      indicators: input.indicators,
      threat_match_value: input.indicators.map((indicator) => indicator.value),
    },
  };
}

/** Events as one HEC request body: each event's JSON, concatenated. */
export function hecBody(events: readonly HecEvent[]): string {
  return events.map((event) => JSON.stringify(event)).join('');
}

function epochSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}
