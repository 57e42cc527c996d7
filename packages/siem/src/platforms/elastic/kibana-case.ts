// Cases through Kibana's Cases API: `POST /api/cases` (or `/s/<space>/api/cases`) with `kbn-xsrf`, a JSON body of
// title (1–160 characters), description (1–30,000), tags (at most 200, each 1–256), severity (low, medium, high,
// critical), owner, `connector` (`{id: 'none', name: 'none', type: '.none', fields: null}` for no external system),
// `settings: {syncAlerts}` and optional `assignees: [{uid}]` (user profile uids, at most 10; Platinum license).
// Errors are Boom bodies `{statusCode, error, message}`.
// https://www.elastic.co/docs/api/doc/kibana/operation/operation-createcasedefaultspace
// https://www.elastic.co/docs/explore-analyze/alerts-cases/cases/manage-cases#cases-assign (assignees, licence)
// Limits: MAX_TITLE_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TAGS_PER_CASE, MAX_LENGTH_PER_TAG in Kibana's
// x-pack/platform/plugins/shared/cases/common/constants/index.ts.
import type { Case, IndicatorRecord } from '@threatlib/core';
import type { KibanaOptions } from './elastic-options.js';

/** Kibana's limits on a case. */
export const KIBANA_CASE_LIMITS = {
  title: 160,
  description: 30_000,
  tags: 200,
  tagLength: 256,
} as const;

/** The body of `POST /api/cases` for `input`. */
export interface KibanaCaseBody {
  title: string;
  description: string;
  tags: string[];
  severity: Case['priority'];
  owner: string;
  connector: { id: 'none'; name: 'none'; type: '.none'; fields: null };
  settings: { syncAlerts: false };
  assignees?: { uid: string }[];
}

/**
 * `input` as a Kibana case:
 *
 * - `title`: the case's, cut to Kibana's 160 characters (the whole title then heads the description);
 * - `description`: the case's description, then its indicators as a list, then the assignee when Kibana has no
 *   profile for it; cut to 30,000 characters, saying how many indicators were left out;
 * - `tags`: `threatlib`, the configured tags, `assignee:<e-mail>` for an assignee without a profile uid, and one
 *   `ioc:<value>` per indicator (so cases are found by indicator in Kibana's tag filter) while within 200 tags of
 *   256 characters;
 * - `severity`: the priority (same four words);
 * - `assignees`: the profile uid `kibana.assignees` maps the assignee's e-mail to, when it does.
 */
export function kibanaCaseBody(input: Case, options: KibanaOptions): KibanaCaseBody {
  const uid = input.assignee === undefined ? undefined : profileUid(options.assignees, input.assignee);
  const unmappedAssignee = input.assignee !== undefined && uid === undefined ? input.assignee : undefined;
  const title = input.title.trim();
  const shortTitle =
    title.length > KIBANA_CASE_LIMITS.title ? `${title.slice(0, KIBANA_CASE_LIMITS.title - 1)}…` : title;
  const tags = uniqueTags([
    'threatlib',
    ...options.tags,
    ...(unmappedAssignee === undefined ? [] : [`assignee:${unmappedAssignee}`]),
    ...input.indicators.map((indicator) => `ioc:${indicator.value}`),
  ]);
  return {
    title: shortTitle,
    description: caseDescription(input, { fullTitle: shortTitle === title ? undefined : title, unmappedAssignee }),
    tags,
    severity: input.priority,
    owner: options.owner,
    connector: { id: 'none', name: 'none', type: '.none', fields: null },
    settings: { syncAlerts: false },
    ...(uid === undefined ? {} : { assignees: [{ uid }] }),
  };
}

function profileUid(assignees: Readonly<Record<string, string>>, email: string): string | undefined {
  const wanted = email.toLowerCase();
  for (const [address, uid] of Object.entries(assignees)) {
    if (address.toLowerCase() === wanted) return uid;
  }
  return undefined;
}

function uniqueTags(candidates: readonly string[]): string[] {
  const tags: string[] = [];
  for (const candidate of candidates) {
    const tag = candidate.trim();
    if (!tag || tag.length > KIBANA_CASE_LIMITS.tagLength || tags.includes(tag)) continue;
    if (tags.length >= KIBANA_CASE_LIMITS.tags) break;
    tags.push(tag);
  }
  return tags;
}

/** The description: the case's own text, its indicators, the assignee without a profile; within Kibana's limit. */
function caseDescription(
  input: Case,
  extra: { fullTitle: string | undefined; unmappedAssignee: string | undefined },
): string {
  const head: string[] = [];
  if (extra.fullTitle !== undefined) head.push(`**${markdownText(extra.fullTitle)}**`, '');
  head.push(input.description?.trim() || '(no description given)');
  const tail: string[] = [];
  if (extra.unmappedAssignee !== undefined) {
    tail.push('', `Assignee: ${markdownText(extra.unmappedAssignee)} (no Kibana user profile given for this address)`);
  }
  tail.push('', '_Opened by threatlib._');
  const limit = KIBANA_CASE_LIMITS.description;
  let text = head.join('\n');
  if (text.length > limit - 2000) text = `${text.slice(0, limit - 2000)}…`;
  const lines = input.indicators.map(indicatorLine);
  let body = '';
  if (lines.length > 0) {
    body = `\n\n**Indicators (${lines.length})**\n`;
    const end = tail.join('\n');
    let listed = 0;
    for (const line of lines) {
      const more = `\n_(${lines.length - listed} more not listed)_`;
      if (text.length + body.length + line.length + 1 + more.length + end.length > limit) {
        body += more;
        break;
      }
      body += `\n${line}`;
      listed += 1;
    }
  }
  return `${text}${body}${tail.join('\n')}`;
}

function indicatorLine(indicator: IndicatorRecord): string {
  const details = [
    indicator.source === undefined ? undefined : `source ${markdownText(indicator.source)}`,
    indicator.sources === undefined ? undefined : `flagged by ${indicator.sources.map(markdownText).join(', ')}`,
    indicator.confidence === undefined ? undefined : `confidence ${indicator.confidence}`,
  ].filter((part) => part !== undefined);
  return `- ${indicator.type} ${codeSpan(indicator.value)}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

/** `value` as a Markdown code span, fenced with more backticks than any run inside it. */
export function codeSpan(value: string): string {
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Text with Markdown's inline markers escaped, so an analyst reads it as written. */
function markdownText(value: string): string {
  return value.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

/** Kibana's error body: `{statusCode, error, message}`. */
interface KibanaError {
  statusCode?: number;
  error?: string;
  message?: string;
}

/** Kibana's own reason in an error answer, or the start of the body when it is not Kibana's JSON. */
export function kibanaReason(body: string): string {
  try {
    const parsed = JSON.parse(body) as KibanaError;
    if (typeof parsed.message === 'string' && parsed.message) return parsed.message;
    if (typeof parsed.error === 'string' && parsed.error) return parsed.error;
  } catch {
    // A proxy's page, or Kibana's plain-text "Kibana server is not ready yet".
  }
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || '(empty answer)';
}
