// What alerts and cases look like in Sentinel. Sources:
// - Custom table rows through a data collection rule (TimeGenerated required, dynamic columns as JSON):
//   https://learn.microsoft.com/en-us/azure/azure-monitor/logs/tutorial-logs-ingestion-portal
// - Incident properties (title, description, severity High/Medium/Low/Informational, status New/Active/Closed,
//   owner {email, userPrincipalName, objectId, assignedTo}, labels [{labelName}]):
//   https://learn.microsoft.com/en-us/rest/api/securityinsights/incidents/create-or-update
import type { Alert, Case, IndicatorRecord } from '@threatlib/core';

/** One alert as a row of the alerts table (stream `Custom-ThreatlibAlerts`); a type, so it is a JSON record. */
export type SentinelAlertRow = {
  TimeGenerated: string;
  AlertId: string;
  Title: string;
  Severity: string;
  Description?: string;
  Source?: string;
  /** The alert's risk score, 1 to 10, when it has one. */
  RiskScore?: number;
  /** The indicators as the alert carries them: `{type, value, confidence?, source?, sources?}`. */
  Indicators: IndicatorRecord[];
};

/** The row of `alert`. */
export function alertRow(alert: Alert): SentinelAlertRow {
  return {
    TimeGenerated: new Date(alert.timestamp).toISOString(),
    AlertId: alert.id,
    Title: alert.title,
    Severity: alert.severity,
    ...(alert.description === undefined ? {} : { Description: alert.description }),
    ...(alert.source === undefined ? {} : { Source: alert.source }),
    ...(alert.riskScore === undefined ? {} : { RiskScore: alert.riskScore }),
    Indicators: alert.indicators,
  };
}

/** Sentinel's severity for a case priority: it has no "critical", so critical is High (and labelled). */
const SEVERITY = { low: 'Low', medium: 'Medium', high: 'High', critical: 'High' } as const;

/** How many indicators an incident's description lists before saying how many more there are. */
const LISTED_INDICATORS = 200;

/** The incident body of a case: title, description (with its indicators), severity, owner and labels. */
export function incidentOf(input: Case): {
  title: string;
  description: string;
  severity: 'High' | 'Medium' | 'Low';
  status: 'New';
  owner?: { email: string; userPrincipalName: string };
  labels: Array<{ labelName: string }>;
} {
  const listed = input.indicators.slice(0, LISTED_INDICATORS).map(indicatorLine);
  const more = input.indicators.length - listed.length;
  const section =
    input.indicators.length === 0 ? '' : `Indicators:\n${listed.join('\n')}${more > 0 ? `\n- … and ${more} more` : ''}`;
  return {
    title: input.title,
    description: [input.description?.trim(), section].filter(Boolean).join('\n\n'),
    severity: SEVERITY[input.priority],
    status: 'New',
    ...(input.assignee === undefined ? {} : { owner: { email: input.assignee, userPrincipalName: input.assignee } }),
    labels: [{ labelName: 'threatlib' }, { labelName: `priority:${input.priority}` }],
  };
}

/** `- <type> <value> (source: <source>)`, as the incident's description lists an indicator. */
function indicatorLine(indicator: IndicatorRecord): string {
  const source = indicator.source ?? indicator.sources?.join(', ');
  return `- ${indicator.type} ${indicator.value}${source ? ` (source: ${source})` : ''}`;
}
