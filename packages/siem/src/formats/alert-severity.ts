import { type Severity, severityForRiskScore } from '@threatlib/core';

/**
 * The 0–10 severity of CEF's header (and 1–10 `sev` of LEEF) for each alert severity, within CEF's bands (0-3 Low,
 * 4-6 Medium, 7-8 High, 9-10 Very-High) and core's risk-score bands (`severityForRiskScore`).
 */
export const EVENT_SEVERITY: Readonly<Record<Severity, number>> = {
  informational: 1,
  low: 3,
  medium: 5,
  high: 8,
  critical: 10,
};

/**
 * An alert's 0–10 event severity: its risk score, rounded, when the alert has one and it falls in the band of the
 * alert's severity (a severity given by hand that contradicts the score wins); otherwise {@link EVENT_SEVERITY}.
 *
 * @example
 * ```ts
 * eventSeverity({ severity: 'high' }); // 8
 * eventSeverity({ severity: 'high', riskScore: 7.2 }); // 7
 * eventSeverity({ severity: 'low', riskScore: 9 }); // 3: the severity given wins
 * ```
 */
export function eventSeverity(alert: { severity: Severity; riskScore?: number | undefined }): number {
  const { severity, riskScore } = alert;
  if (riskScore !== undefined && Number.isFinite(riskScore) && severityForRiskScore(riskScore) === severity) {
    return Math.min(10, Math.max(1, Math.round(riskScore)));
  }
  return EVENT_SEVERITY[severity];
}
