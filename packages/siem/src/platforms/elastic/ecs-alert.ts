// Alerts as Elastic Common Schema documents. Sources:
// - event.kind `alert`, event.category `threat`, event.type `indicator`, event.severity (numeric, the source's
//   scale), event.risk_score (the source's own value):
//   https://www.elastic.co/docs/reference/ecs/ecs-allowed-values-event-kind
//   https://www.elastic.co/docs/reference/ecs/ecs-event
// - threat.indicator.* (type from STIX 2.0 cyber observables: ipv4-addr, ipv6-addr, domain-name, url, file,
//   email-addr; ip, url.full, url.domain, file.hash.*, email.address; confidence on the None/Low/Medium/High scale of
//   STIX 2.1 Appendix A; provider):
//   https://www.elastic.co/docs/reference/ecs/ecs-threat
//   https://www.elastic.co/docs/reference/ecs/ecs-threat-usage
// - related.ip / related.hosts / related.hash, for pivoting: https://www.elastic.co/docs/reference/ecs/ecs-related
import type { Alert, IndicatorRecord, IndicatorType } from '@threatlib/core';
import { eventSeverity } from '../../formats/alert-severity.js';

/** The ECS version the documents follow. */
const ECS_VERSION = '8.17.0';

/** The STIX 2.0 cyber observable type ECS's `threat.indicator.type` takes, for each indicator type. */
const ECS_INDICATOR_TYPE: Readonly<Record<IndicatorType, string>> = {
  ipv4: 'ipv4-addr',
  ipv6: 'ipv6-addr',
  domain: 'domain-name',
  url: 'url',
  md5: 'file',
  sha1: 'file',
  sha256: 'file',
  email: 'email-addr',
};

/** The `threat.indicator` field that holds the value, for each indicator type (relative to `threat.indicator`). */
export const ECS_INDICATOR_FIELD: Readonly<Record<IndicatorType, string>> = {
  ipv4: 'ip',
  ipv6: 'ip',
  domain: 'url.domain',
  url: 'url.full',
  md5: 'file.hash.md5',
  sha1: 'file.hash.sha1',
  sha256: 'file.hash.sha256',
  email: 'email.address',
};

/**
 * A 0–100 confidence on ECS's scale (STIX 2.1 Appendix A "None / Low / Med / High"): 0 None, 1–29 Low, 30–69
 * Medium, 70–100 High.
 */
export function ecsConfidence(confidence: number): 'None' | 'Low' | 'Medium' | 'High' {
  if (confidence <= 0) return 'None';
  if (confidence < 30) return 'Low';
  if (confidence < 70) return 'Medium';
  return 'High';
}

/** One indicator as ECS's `threat.indicator` object. */
export function ecsIndicator(indicator: IndicatorRecord): Record<string, unknown> {
  const providers = [...new Set([indicator.source, ...(indicator.sources ?? [])].filter((s) => s !== undefined))];
  const object: Record<string, unknown> = { type: ECS_INDICATOR_TYPE[indicator.type] };
  setPath(object, ECS_INDICATOR_FIELD[indicator.type], indicator.value);
  if (indicator.type === 'url') {
    const host = hostOf(indicator.value);
    if (host !== undefined) setPath(object, 'url.domain', host);
  }
  if (indicator.confidence !== undefined) object.confidence = ecsConfidence(indicator.confidence);
  if (providers.length === 1) object.provider = providers[0];
  else if (providers.length > 1) object.provider = providers;
  return object;
}

/**
 * An alert as the ECS document `sendAlerts` indexes (its `_id` is the alert's id, so a retried or repeated delivery
 * finds it there instead of writing it twice):
 *
 * - `@timestamp` the alert's time, `message` its title and description, `rule.name` its title;
 * - `event.kind: alert`, `event.category: [threat]`, `event.type: [indicator]`, `event.id` the alert id,
 *   `event.severity` 1–10 (`eventSeverity`), `event.risk_score` the alert's risk score (1–10, its severity's when it
 *   has none), `event.created` when it was sent;
 * - `threat.indicator`: one object per indicator (an object for one, a list for several, as ECS allows any field to
 *   hold several values), and `related.ip` / `related.hosts` / `related.hash` listing every value;
 * - `threatlib.alert` (severity as a word, source, description) and `threatlib.metadata` (the alert's metadata, a
 *   `flattened` field, so no alert's metadata can clash with another's mapping).
 */
export function ecsAlertDocument(alert: Alert, sentAt: Date): Record<string, unknown> {
  const severity = eventSeverity(alert);
  const indicators = alert.indicators.map(ecsIndicator);
  const related = relatedValues(alert.indicators);
  const message = alert.description ? `${alert.title}: ${alert.description}` : alert.title;
  return {
    '@timestamp': alert.timestamp,
    ecs: { version: ECS_VERSION },
    message,
    tags: ['threatlib'],
    event: {
      kind: 'alert',
      category: ['threat'],
      type: ['indicator'],
      id: alert.id,
      severity,
      risk_score: alert.riskScore ?? severity,
      created: sentAt.toISOString(),
      module: 'threatlib',
      dataset: 'threatlib.alert',
      provider: 'threatlib',
    },
    rule: { name: alert.title },
    ...(indicators.length === 0 ? {} : { threat: { indicator: indicators.length === 1 ? indicators[0] : indicators } }),
    ...(Object.keys(related).length === 0 ? {} : { related }),
    threatlib: {
      alert: {
        severity: alert.severity,
        ...(alert.source === undefined ? {} : { source: alert.source }),
        ...(alert.description === undefined ? {} : { description: alert.description }),
      },
      ...(alert.metadata === undefined ? {} : { metadata: alert.metadata }),
    },
  };
}

function relatedValues(indicators: readonly IndicatorRecord[]): Record<string, string[]> {
  const ip = new Set<string>();
  const hosts = new Set<string>();
  const hash = new Set<string>();
  for (const indicator of indicators) {
    switch (indicator.type) {
      case 'ipv4':
      case 'ipv6':
        ip.add(indicator.value);
        break;
      case 'domain':
        hosts.add(indicator.value);
        break;
      case 'url': {
        const host = hostOf(indicator.value);
        if (host !== undefined) hosts.add(host);
        break;
      }
      case 'md5':
      case 'sha1':
      case 'sha256':
        hash.add(indicator.value);
        break;
      default:
        break;
    }
  }
  return {
    ...(ip.size > 0 ? { ip: [...ip] } : {}),
    ...(hosts.size > 0 ? { hosts: [...hosts] } : {}),
    ...(hash.size > 0 ? { hash: [...hash] } : {}),
  };
}

/** The host of a URL (without IPv6 brackets), or undefined when it has none. */
function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname;
    return host ? host.replace(/^\[|\]$/g, '') : undefined;
  } catch {
    return undefined;
  }
}

function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current = object;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (typeof next === 'object' && next !== null) current = next as Record<string, unknown>;
    else {
      const created: Record<string, unknown> = {};
      current[key] = created;
      current = created;
    }
  }
  current[keys[keys.length - 1] as string] = value;
}
