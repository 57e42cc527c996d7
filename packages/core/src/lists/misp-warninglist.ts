import * as z from 'zod';
import { formatPath } from '../config/format-path.js';
import type { IndicatorType } from '../indicators/indicator.js';
import type { MatcherRule } from './indicator-matcher.js';
import { cidrRule, type EntryResult, exactRule, hostnameRule, regexRule, substringRule } from './list-entry.js';
import { ListLoadError } from './list-load-error.js';
import { indicatorTypesForAttributes } from './misp-attribute-types.js';
import {
  MAX_REPORTED_SKIPS,
  MISP_LIST_TYPES,
  type MispListType,
  type SkippedEntry,
  Warninglist,
  type WarninglistTag,
} from './warninglist.js';

// MISP/misp-warninglists `schema.json` requires name, description, version, type and list, and forbids other
// fields. This is looser on purpose, in the ways MISP's own importer (app/Model/Warninglist.php `update`) is: a
// missing version or type is tolerated (type then defaults to `string`), a type given as an array counts by its
// first element, `list` may map entries to comments, and unknown fields are ignored so newer files still load.
const MispWarninglistSchema = z.looseObject({
  name: z.string().trim().min(1, 'a warninglist needs a name'),
  description: z.string().optional(),
  version: z.union([z.number(), z.string().regex(/^\d+$/, 'expected a number')]).optional(),
  type: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  list: z.union([z.array(z.string()), z.record(z.string(), z.string().nullable())]),
  matching_attributes: z.array(z.string()).optional(),
});

type EntryCompiler = <T>(text: string, types: readonly IndicatorType[], tag: T) => EntryResult<T>;

// MISP's matching, per list type (Warninglist::checkValue): `string` is an exact comparison only, with no
// parent-domain matching whatever the matching attributes; parent matching is what `hostname` lists are for.
const COMPILERS: Readonly<Record<MispListType, EntryCompiler>> = {
  string: exactRule,
  hostname: hostnameRule,
  cidr: cidrRule,
  substring: substringRule,
  regex: regexRule,
};

/**
 * Loads a MISP warninglist (https://github.com/MISP/misp-warninglists) from a file, or from its already-parsed
 * JSON. Entries are normalised like indicators so comparisons are exact, and apply only to the indicator types the
 * list's `matching_attributes` cover. Entries that can never match a threatlib indicator (a SHA-512, an entry of a
 * type the list does not apply to) are counted in `ignored`, the first few in `firstIgnored`.
 *
 * @throws {@link ListLoadError} naming the file (or list) when the file cannot be read, is not JSON, is not a
 * warninglist, has an unknown `type`, or has a regular expression JavaScript cannot run.
 *
 * @example
 * ```ts
 * const tranco = await loadMispWarninglist('warninglists/tranco10k.json');
 * tranco.match(parseIndicator('mail.google.com'))?.reason; // 'on warninglist "Top 10K most-used sites …" (google.com)'
 * ```
 */
export async function loadMispWarninglist(input: string | URL | object): Promise<Warninglist> {
  if (typeof input !== 'string' && !(input instanceof URL)) return compileMispWarninglist(input);
  // Loaded on first use: reading a file needs Node.js, a warninglist given as an object does not.
  const { describeListFile, readListFile } = await import('./read-list-file.js');
  const source = describeListFile(input);
  const text = await readListFile(input);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ListLoadError(source, `not JSON (${(error as Error).message})`, { cause: error });
  }
  return compileMispWarninglist(json, source);
}

/**
 * Builds a {@link Warninglist} from a parsed MISP warninglist. `source` names it in errors and defaults to the
 * list's name.
 *
 * @throws {@link ListLoadError} as {@link loadMispWarninglist} does, except for file errors.
 */
export function compileMispWarninglist(json: unknown, source?: string): Warninglist {
  const parsed = MispWarninglistSchema.safeParse(json);
  const where = source ?? describeInline(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${formatPath(issue.path) || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ListLoadError(where, `not a MISP warninglist: ${problems}`);
  }
  const data = parsed.data;
  const rawType = Array.isArray(data.type) ? data.type[0] : (data.type ?? 'string');
  if (!(MISP_LIST_TYPES as readonly string[]).includes(rawType ?? '')) {
    throw new ListLoadError(
      where,
      `unknown warninglist type ${JSON.stringify(rawType)} (expected one of ${MISP_LIST_TYPES.join(', ')})`,
    );
  }
  const type = rawType as MispListType;
  const matchingAttributes = data.matching_attributes ?? [];
  const { types } = indicatorTypesForAttributes(matchingAttributes);
  const compile = COMPILERS[type];
  const listTag: WarninglistTag = { list: data.name };
  const entries: [string, string | null | undefined][] = Array.isArray(data.list)
    ? data.list.map((entry) => [entry, undefined])
    : Object.entries(data.list);

  const rules: MatcherRule<WarninglistTag>[] = [];
  const firstIgnored: SkippedEntry[] = [];
  let ignored = 0;
  entries.forEach(([entry, comment], index) => {
    // MISP's importer drops empty entries too.
    if (entry.trim() === '') return;
    // One shared tag for uncommented entries keeps big lists (60,000 resolvers) from costing an object per entry.
    const tag = comment ? { list: data.name, comment } : listTag;
    const result = compile(entry, types, tag);
    if (result.ok) {
      rules.push(result.rule);
      return;
    }
    if (type === 'regex') {
      // A pattern left out would silently narrow what the list covers; refuse the list so the author can fix it.
      throw new ListLoadError(
        where,
        `warninglist ${JSON.stringify(data.name)}: entry ${JSON.stringify(entry)} is not a usable regular ` +
          `expression: it ${result.reason}`,
      );
    }
    ignored += 1;
    if (firstIgnored.length < MAX_REPORTED_SKIPS) {
      firstIgnored.push({ line: index + 1, entry: entry.slice(0, 100), reason: result.reason });
    }
  });

  return new Warninglist({
    name: data.name,
    description: data.description ?? '',
    version: data.version === undefined ? undefined : Number(data.version),
    type,
    matchingAttributes,
    types,
    source: source ?? 'inline',
    rules,
    ignored,
    firstIgnored,
  });
}

function describeInline(json: unknown): string {
  const name = (json as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.trim() !== ''
    ? `warninglist ${JSON.stringify(name)}`
    : '(inline warninglist)';
}
