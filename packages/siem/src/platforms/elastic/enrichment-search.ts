// Enrichment through one search: `size: 0`, an exact count (`track_total_hits: true`), `min`/`max` aggregations on
// `@timestamp` and the highest `event.risk_score`, filtered with `term` queries on the ECS fields that hold the
// indicator (the threat.indicator field of our alerts, and the usual ECS fields of events in other indices).
// https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-search
// https://www.elastic.co/docs/reference/aggregations/search-aggregations-metrics-min-aggregation
// https://www.elastic.co/docs/reference/aggregations/search-aggregations-metrics-max-aggregation
// https://www.elastic.co/docs/reference/ecs/ecs-field-reference
import type { IndicatorRecord, IndicatorType } from '@threatlib/core';
import { ECS_INDICATOR_FIELD } from './ecs-alert.js';

/** The ECS fields, besides `threat.indicator.*`, where events hold a value of each type. */
const EVENT_FIELDS: Readonly<Record<IndicatorType, readonly string[]>> = {
  ipv4: ['source.ip', 'destination.ip', 'client.ip', 'server.ip', 'host.ip', 'related.ip'],
  ipv6: ['source.ip', 'destination.ip', 'client.ip', 'server.ip', 'host.ip', 'related.ip'],
  domain: ['url.domain', 'destination.domain', 'source.domain', 'dns.question.name', 'related.hosts'],
  url: ['url.full', 'url.original'],
  md5: ['file.hash.md5', 'process.hash.md5', 'related.hash'],
  sha1: ['file.hash.sha1', 'process.hash.sha1', 'related.hash'],
  sha256: ['file.hash.sha256', 'process.hash.sha256', 'related.hash'],
  email: ['email.from.address', 'email.to.address', 'email.sender.address', 'user.email'],
};

/**
 * Every field `enrichIndicator` matches an indicator of `type` on: the ECS fields, and their `.keyword` sub-fields,
 * which is where an index without ECS mappings (dynamic mapping makes strings `text` with a `keyword` sub-field)
 * keeps the exact value.
 */
function enrichmentFields(type: IndicatorType): string[] {
  const fields = [`threat.indicator.${ECS_INDICATOR_FIELD[type]}`, ...EVENT_FIELDS[type]];
  return [...fields, ...fields.map((field) => `${field}.keyword`)];
}

/** The search body for `indicator` (`lookback` as Elasticsearch time units, or `all`). */
export function enrichmentSearch(indicator: IndicatorRecord, lookback: string): Record<string, unknown> {
  const match = {
    bool: {
      should: enrichmentFields(indicator.type).map((field) => ({ term: { [field]: indicator.value } })),
      minimum_should_match: 1,
    },
  };
  const filter: unknown[] = [match];
  if (lookback !== 'all') filter.push({ range: { '@timestamp': { gte: `now-${lookback}` } } });
  return {
    size: 0,
    track_total_hits: true,
    query: { bool: { filter } },
    aggs: {
      first_seen: { min: { field: '@timestamp' } },
      last_seen: { max: { field: '@timestamp' } },
      risk_score: { max: { field: 'event.risk_score' } },
    },
  };
}

/** What the search found. */
export interface EnrichmentFigures {
  count: number;
  /** Epoch ms, when any event had a time. */
  firstSeen: number | undefined;
  lastSeen: number | undefined;
  /** The highest `event.risk_score`, when any event had one. */
  riskScore: number | undefined;
}

/**
 * Reads the answer of {@link enrichmentSearch}.
 *
 * @throws {Error} when it is not such an answer (no total).
 */
export function readEnrichment(answer: {
  hits?: { total?: number | { value?: number } };
  aggregations?: Record<string, unknown>;
}): EnrichmentFigures {
  const total = answer.hits?.total;
  const count = typeof total === 'number' ? total : total?.value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new Error('the search answer has no hit count');
  }
  return {
    count,
    firstSeen: aggregateValue(answer.aggregations, 'first_seen'),
    lastSeen: aggregateValue(answer.aggregations, 'last_seen'),
    riskScore: aggregateValue(answer.aggregations, 'risk_score'),
  };
}

function aggregateValue(aggregations: Record<string, unknown> | undefined, name: string): number | undefined {
  const value = (aggregations?.[name] as { value?: unknown } | undefined)?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
