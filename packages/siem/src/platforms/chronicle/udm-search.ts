// Enrichment by a UDM search: every event naming the indicator within the search window, reduced to the first and
// last event time, the count, and the highest risk.
// - udmSearch (query, timeRange, limit; answers events[] and moreDataAvailable):
//   https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/udmSearch
// - UDM search syntax (field = "value", OR, grouped fields ip, hostname, domain, hash, email):
//   https://cloud.google.com/chronicle/docs/investigation/udm-search
import type { IndicatorRecord } from '@threatlib/core';
import { EVENT_SEVERITY } from '../../formats/alert-severity.js';

const NOUNS = ['principal', 'src', 'target', 'about'] as const;

/** `value` as a UDM search string literal: double quotes, backslash and quote escaped. */
export function udmString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The UDM search that finds every event naming `indicator`, in the fields {@link indicatorNoun} fills and kin. */
export function enrichmentQuery(indicator: IndicatorRecord): string {
  const v = udmString(indicator.value);
  switch (indicator.type) {
    case 'ipv4':
    case 'ipv6':
      return `ip = ${v}`;
    case 'domain':
      return `hostname = ${v} OR domain = ${v}`;
    case 'url':
      return NOUNS.map((noun) => `${noun}.url = ${v}`).join(' OR ');
    case 'md5':
    case 'sha1':
    case 'sha256':
      return `hash = ${v}`;
    case 'email':
      return `email = ${v}`;
  }
}

/** A UDM severity as a 0–10 score, on the bands of the connector's own alert severities. */
const SEVERITY_SCORE: Readonly<Record<string, number>> = {
  INFORMATIONAL: EVENT_SEVERITY.informational,
  LOW: EVENT_SEVERITY.low,
  MEDIUM: EVENT_SEVERITY.medium,
  HIGH: EVENT_SEVERITY.high,
  CRITICAL: EVENT_SEVERITY.critical,
};

/** What a search found. */
export interface SearchSummary {
  /** Events found (at most the search's limit). */
  count: number;
  /** Epoch ms of the earliest and latest event, when any was found. */
  first?: number;
  last?: number;
  /** The highest risk among the events' security results (0 when none says). */
  risk: number;
  /** Chronicle found more events than it answered (`moreDataAvailable`): `count` is a lower bound. */
  truncated: boolean;
}

interface SecurityResult {
  riskScore?: unknown;
  severity?: unknown;
}

/**
 * Reads udmSearch's answer. The risk of a security result is its `risk_score`, else the 0–10 score of its
 * severity (so a detection from another product without a risk score still counts).
 *
 * @throws {Error} when the answer is not udmSearch's JSON.
 */
export function summariseSearch(body: string): SearchSummary {
  const answer = JSON.parse(body) as { events?: unknown; moreDataAvailable?: unknown; more_data_available?: unknown };
  if (typeof answer !== 'object' || answer === null) throw new Error('not an object');
  const events = answer.events ?? [];
  if (!Array.isArray(events)) throw new Error('events is not a list');
  let first: number | undefined;
  let last: number | undefined;
  let risk = 0;
  for (const event of events as { udm?: { metadata?: { eventTimestamp?: unknown }; securityResult?: unknown } }[]) {
    const at =
      typeof event?.udm?.metadata?.eventTimestamp === 'string'
        ? Date.parse(event.udm.metadata.eventTimestamp)
        : Number.NaN;
    if (!Number.isNaN(at)) {
      first = first === undefined ? at : Math.min(first, at);
      last = last === undefined ? at : Math.max(last, at);
    }
    const results = Array.isArray(event?.udm?.securityResult) ? (event.udm.securityResult as SecurityResult[]) : [];
    for (const result of results) {
      const score =
        typeof result?.riskScore === 'number' && Number.isFinite(result.riskScore)
          ? result.riskScore
          : typeof result?.severity === 'string'
            ? (SEVERITY_SCORE[result.severity] ?? 0)
            : 0;
      risk = Math.max(risk, score);
    }
  }
  return {
    count: events.length,
    ...(first === undefined ? {} : { first }),
    ...(last === undefined ? {} : { last }),
    risk,
    truncated: answer.moreDataAvailable === true || answer.more_data_available === true,
  };
}
