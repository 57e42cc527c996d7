// Alerts as UDM events (Google SecOps' Unified Data Model), for events:import.
// - UDM event and nouns: https://cloud.google.com/chronicle/docs/reference/rest/Shared.Types/UDM
// - Field list (metadata, security_result, noun fields): https://cloud.google.com/chronicle/docs/reference/udm-field-list
// - Event types (GENERIC_EVENT needs no particular noun): https://cloud.google.com/chronicle/docs/unified-data-model/udm-usage
// - Format log data as UDM: https://cloud.google.com/chronicle/docs/unified-data-model/format-events-as-udm
import type { Alert, IndicatorRecord, Severity } from '@threatlib/core';
import { alertSources } from '../../formats/alert-fields.js';

/** `security_result.severity` of each alert severity. */
const UDM_SEVERITY: Readonly<Record<Severity, string>> = {
  informational: 'INFORMATIONAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  critical: 'CRITICAL',
};

/** `metadata.product_event_type` of the connector's alerts, to find them in a search. */
const ALERT_EVENT_TYPE = 'threatlib:alert';

/** Who the events say wrote them. */
export interface UdmProduct {
  vendorName: string;
  productName: string;
  productVersion: string;
}

/** A UDM noun (`principal`, `target`, `about[]`...), with the fields the connector fills. */
type UdmNoun = {
  ip?: string[];
  hostname?: string;
  domain?: { name: string };
  url?: string;
  file?: { md5?: string; sha1?: string; sha256?: string };
  user?: { emailAddresses: string[] };
};

/** One event of an import request: `{udm: {...}}`. */
export interface UdmImportEvent {
  udm: {
    metadata: Record<string, string>;
    target?: UdmNoun;
    about?: UdmNoun[];
    securityResult: Record<string, unknown>[];
  };
}

/** The noun that names an indicator, in the field the UDM has for its kind. */
function indicatorNoun(indicator: IndicatorRecord): UdmNoun {
  switch (indicator.type) {
    case 'ipv4':
    case 'ipv6':
      return { ip: [indicator.value] };
    case 'domain':
      return { hostname: indicator.value, domain: { name: indicator.value } };
    case 'url':
      return { url: indicator.value };
    case 'md5':
      return { file: { md5: indicator.value } };
    case 'sha1':
      return { file: { sha1: indicator.value } };
    case 'sha256':
      return { file: { sha256: indicator.value } };
    case 'email':
      return { user: { emailAddresses: [indicator.value] } };
  }
}

/**
 * An alert as a `GENERIC_EVENT`: its time as `metadata.event_timestamp`, its id as `metadata.product_log_id`, its
 * first indicator as `target` and the others as `about`, and the verdict as one `security_result` (title as
 * `summary`, severity, risk score, the highest indicator confidence as `confidence_score`, the alert id and the
 * flagging sources as detection fields).
 */
export function alertUdmEvent(alert: Alert, product: UdmProduct): UdmImportEvent {
  const [first, ...others] = alert.indicators;
  const confidences = alert.indicators.flatMap((i) => (i.confidence === undefined ? [] : [i.confidence]));
  const sources = alertSources(alert);
  const detectionFields = [
    { key: 'threatlib_alert_id', value: alert.id },
    ...(alert.source === undefined ? [] : [{ key: 'threatlib_source', value: alert.source }]),
    ...(sources.length === 0 ? [] : [{ key: 'flagged_by', value: sources.join(', ') }]),
  ];
  return {
    udm: {
      metadata: {
        eventTimestamp: new Date(alert.timestamp).toISOString(),
        eventType: 'GENERIC_EVENT',
        vendorName: product.vendorName,
        productName: product.productName,
        productVersion: product.productVersion,
        productEventType: ALERT_EVENT_TYPE,
        productLogId: alert.id,
        description: alert.title,
      },
      ...(first === undefined ? {} : { target: indicatorNoun(first) }),
      ...(others.length === 0 ? {} : { about: others.map(indicatorNoun) }),
      securityResult: [
        {
          summary: alert.title,
          ...(alert.description ? { description: alert.description } : {}),
          severity: UDM_SEVERITY[alert.severity],
          ...(alert.riskScore === undefined ? {} : { riskScore: alert.riskScore }),
          ...(confidences.length === 0 ? {} : { confidenceScore: Math.max(...confidences) }),
          alertState: 'ALERTING',
          detectionFields,
        },
      ],
    },
  };
}
