// Enrichment through Splunk's search REST API on the management port, with `output_mode=json`:
// - export (streams results, no job kept): POST /services/search/v2/jobs/export (Splunk 9)
// - oneshot (blocks, results in the answer): POST /services/search/jobs with exec_mode=oneshot
// https://help.splunk.com/splunk-enterprise/search/search-manual/9.3/export-search-results/export-data-using-the-splunk-rest-api
// https://help.splunk.com/en/splunk-enterprise/leverage-rest-apis/rest-api-tutorials/9.0/rest-api-tutorials/creating-searches-using-the-rest-api
// Errors come as {"messages": [{"type": "FATAL" | "ERROR" | "WARN", "text": ...}]} (XML when output_mode is absent).
import type { IndicatorRecord } from '@threatlib/core';

/** The field of an alert event that holds its risk score (1 to 10), read with `spath`. */
const RISK_PATH = 'riskScore';

/**
 * The SPL that summarises what Splunk has on `indicator`: every event in `indexes` holding the value (a phrase search,
 * then an exact `match` on `_raw`, since a phrase treats `*` as a wildcard), reduced by `stats` to the first and
 * last time, the count, and the highest risk score of the alert events among them.
 */
export function enrichmentSearch(indicator: IndicatorRecord, indexes: readonly string[]): string {
  const scope = indexes.map((index) => `index=${splString(index)}`).join(' OR ');
  return [
    `search (${scope}) ${splString(indicator.value)}`,
    `where match(_raw, ${splString(regexLiteral(indicator.value))})`,
    `spath output=threatlib_risk path=${RISK_PATH}`,
    'stats min(_time) AS firstSeen max(_time) AS lastSeen count AS associatedEvents max(threatlib_risk) AS riskScore',
  ].join(' | ');
}

/** `value` as an SPL double-quoted string: backslashes and quotes escaped with a backslash. */
export function splString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A regular expression matching `value` literally. */
export function regexLiteral(value: string): string {
  return value.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
}

/** One row of search results, as Splunk's JSON gives it (every value a string, or a list for multivalue fields). */
type SearchRow = Record<string, string | string[] | undefined>;

/** What a search answered: its rows and its messages. */
export interface SearchAnswer {
  rows: SearchRow[];
  /** `FATAL` and `ERROR` messages: the search failed. */
  errors: string[];
}

/**
 * Reads an export answer: one JSON object per line, `{"preview": false, "result": {...}}` for each row (`lastrow`
 * on the last), and `{"messages": [...]}` lines.
 */
export function readExport(body: string): SearchAnswer {
  const rows: SearchRow[] = [];
  const errors: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const object = JSON.parse(line) as { preview?: boolean; result?: SearchRow; messages?: unknown };
    if (object.result && object.preview !== true) rows.push(object.result);
    errors.push(...failureMessages(object.messages));
  }
  return { rows, errors };
}

/** Reads a oneshot answer: `{"results": [...], "messages": [...]}`. */
export function readOneshot(body: string): SearchAnswer {
  const object = JSON.parse(body) as { results?: SearchRow[]; messages?: unknown };
  if (!Array.isArray(object.results)) throw new SyntaxError('no "results" list in the oneshot answer');
  return { rows: object.results, errors: failureMessages(object.messages) };
}

/** Splunk's own reason in an error answer of the management port (JSON or XML), or undefined. */
export function managementReason(body: string): string | undefined {
  try {
    const object = JSON.parse(body) as { messages?: { type?: string; text?: string }[] };
    const texts = (object.messages ?? []).map((m) => m.text).filter((t): t is string => typeof t === 'string');
    if (texts.length > 0) return texts.join('; ');
  } catch {
    // Not JSON: Splunk answers XML when output_mode was not honoured.
  }
  const xml = [...body.matchAll(/<msg[^>]*>([^<]*)<\/msg>/g)].map((m) => decodeXml(m[1] ?? ''));
  return xml.length > 0 ? xml.join('; ') : undefined;
}

function failureMessages(messages: unknown): string[] {
  if (!Array.isArray(messages)) return [];
  return messages
    .filter((m): m is { type: string; text: string } => typeof m?.text === 'string' && typeof m?.type === 'string')
    .filter((m) => m.type === 'FATAL' || m.type === 'ERROR')
    .map((m) => m.text);
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** A Splunk epoch-seconds value (`"1700000000.123"`) as ISO 8601, or undefined when absent or not a number. */
export function isoFromEpoch(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === '') return undefined;
  const seconds = Number(text);
  return Number.isFinite(seconds) ? new Date(Math.round(seconds * 1000)).toISOString() : undefined;
}
