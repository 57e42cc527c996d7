// The enrichment query, in the Kusto Query Language. Sources:
// - String literals: single quotes, with `\\`, `\'`, `\t`, `\n`, `\r` escaped by a backslash:
//   https://learn.microsoft.com/en-us/kusto/query/scalar-data-types/string
// - base64_decode_tostring, for a value no literal can carry safely (other control characters):
//   https://learn.microsoft.com/en-us/kusto/query/base64-decode-tostring-function
// - mv-expand over the dynamic `Indicators` column, summarize min/max/count:
//   https://learn.microsoft.com/en-us/kusto/query/mv-expand-operator, .../summarize-operator
import type { IndicatorRecord } from '@threatlib/core';

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * `value` as a KQL string expression that evaluates to exactly `value`: a single-quoted literal with Kusto's
 * escapes, or, when the value holds a control character a literal has no escape for, a base64 literal decoded by
 * `base64_decode_tostring` (its alphabet needs no escaping).
 */
export function kqlString(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters is the point.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u2028\u2029]/.test(value)) {
    return `base64_decode_tostring('${Buffer.from(value, 'utf8').toString('base64')}')`;
  }
  return `'${value.replace(/[\\'\t\n\r]/g, (ch) => ESCAPES[ch] as string)}'`;
}

/**
 * The query `enrichIndicator` runs over `table`: the alerts naming the indicator (its precise type and normalised
 * value, as alerts carry them), their first and last time, how many, and the highest risk score among them.
 * `table` is a validated identifier; the indicator only ever enters the query as a {@link kqlString}.
 */
export function enrichmentQuery(table: string, indicator: Pick<IndicatorRecord, 'type' | 'value'>): string {
  return [
    table,
    '| mv-expand Indicator = Indicators',
    `| where tostring(Indicator.type) == ${kqlString(indicator.type)} and tostring(Indicator.value) == ${kqlString(indicator.value)}`,
    '| summarize FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated), Events = count(), RiskScore = max(RiskScore)',
  ].join('\n');
}
