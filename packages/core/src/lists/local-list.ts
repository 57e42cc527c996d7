import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { FeedLookupResult } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import type { FeedVerdict } from '../feeds/feed-result.js';
import { INDICATOR_TYPES, type Indicator, type IndicatorType } from '../indicators/indicator.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { refang } from '../indicators/refang.js';
import { readStixBundleEntries, type StixEntryValue } from '../stix/read-stix-bundle.js';
import { readCsv } from './csv-reader.js';
import { IndicatorMatcher, type MatcherRule, type MatcherStats } from './indicator-matcher.js';
import { parseIpRange } from './ip-range.js';
import { cidrRule, type EntryResult, exactRule, normaliseHostname } from './list-entry.js';
import { ListLoadError } from './list-load-error.js';
import { compileMispWarninglist } from './misp-warninglist.js';
import { MAX_REPORTED_SKIPS, type SkippedEntry } from './warninglist.js';

/** The file formats {@link loadLocalList} reads. */
const LOCAL_LIST_FORMATS = ['plain', 'csv', 'misp-warninglist', 'stix'] as const;

/** One of {@link LOCAL_LIST_FORMATS}. */
export type LocalListFormat = (typeof LOCAL_LIST_FORMATS)[number];

/** How entries of a plain or CSV local list match; see {@link LocalListOptions.match}. */
export const LOCAL_LIST_MATCH_MODES = ['host', 'exact'] as const;

/** One of {@link LOCAL_LIST_MATCH_MODES}. */
export type LocalListMatchMode = (typeof LOCAL_LIST_MATCH_MODES)[number];

/** What being on a local list means: a blocklist says `malicious` or `suspicious`, an allowlist `clean`. */
export type LocalListVerdict = Exclude<FeedVerdict, 'unknown'>;

/** Where a local list comes from and what it means. */
export interface LocalListOptions {
  /** Names the list in evidence and in its source id, `list:<name>`. */
  name: string;
  /** The list file (UTF-8). */
  file: string | URL;
  /**
   * `plain` (default): one indicator per line, `#` comments; `csv`: indicators in one column; `misp-warninglist`:
   * a MISP warninglist JSON file, matched as MISP would; `stix`: a STIX 2.1 bundle (JSON), its indicators' patterns
   * read as `fromStixBundle` reads them (address ranges too), what cannot be read reported in `skipped`.
   */
  format?: LocalListFormat;
  /** The verdict for a listed indicator. Default `malicious`. */
  verdict?: LocalListVerdict;
  /**
   * How the entries of a `plain`, `csv` or `stix` list match (a `misp-warninglist` file says so itself, by its
   * `type`):
   * - `host` (default): a listed IP address also matches URLs on that address (IPv4-mapped IPv6 included), a
   *   range the URLs on addresses in it; a listed domain matches every name under it, URLs on those names and
   *   e-mail addresses at them, as MISP's `hostname` lists do; a listed URL matches whatever its fragment.
   * - `exact`: an entry matches the indicator it is and nothing else (ranges still match the addresses in them, and
   *   `*.name` entries the names under them).
   */
  match?: LocalListMatchMode;
  /**
   * For `csv`: the column holding the indicators, by 0-based index or by header name. Default 0. A name is looked
   * up in the first row, or in the last `#` comment line before the data (as abuse.ch exports write it).
   */
  column?: string | number;
}

/** Which entry of a local list an indicator matched. */
export interface LocalListMatch {
  /** The entry, normalised: the indicator itself, or the range or domain that covers it. */
  readonly entry: string;
  /** The entry's 1-based line in the file (absent for `misp-warninglist` and `stix` files, which have no lines). */
  readonly line?: number;
}

/** What a local list is made of; {@link loadLocalList} and {@link parseLocalList} build it from a file's text. */
export interface LocalListContents {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** The verdict for a listed indicator. */
  readonly verdict: LocalListVerdict;
  /** The format the entries were read from. */
  readonly format: LocalListFormat;
  /**
   * `host` when the entries were made with {@link LocalListOptions.match} `host`: a URL is then also looked up
   * without its fragment. Default `exact`.
   */
  readonly matching?: LocalListMatchMode;
  /** The file path, or a description of where the text came from. */
  readonly source: string;
  /** The entries, each tagged with its line (undefined when entries have no lines). */
  readonly rules: Iterable<MatcherRule<number | undefined>>;
  /** Lines (or entries) that were not used. */
  readonly skipped: number;
  /** The first few of those, with why. */
  readonly firstSkipped: readonly SkippedEntry[];
}

const SCORES: Readonly<Record<LocalListVerdict, number>> = { malicious: 1, suspicious: 0.5, clean: 0 };

// A CIDR range, which parseIndicator refuses as an indicator but which a list uses to cover many addresses.
const CIDR_SHAPE = /^[0-9a-f:.]+\/\d{1,3}$/i;
// After whitespace only, so that a URL's `#fragment` stays part of the URL.
const TRAILING_COMMENT = /\s+#.*$/s;
const HOST_TYPES: readonly IndicatorType[] = ['domain', 'url', 'email'];
// Ranges apply to addresses only in `exact` mode; in `host` mode to URLs on them too.
const IP_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];
const IP_HOST_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6', 'url'];

/**
 * A list of indicators loaded from a file and answered offline, for air-gapped use and for the quick start. Lookups
 * are hash-map probes (see {@link IndicatorMatcher}), so a list of millions answers as fast as one of ten.
 *
 * Entries: an indicator (after the same normalisation and refanging as lookups), a CIDR range (`10.0.0.0/8`), or
 * `*.evil.com` (matching `evil.com` and every name under it, also as a URL's host or an email address's domain).
 * By default (`match: 'host'`) a listed address or range also matches URLs on it, a listed domain the names under it,
 * URLs on them and e-mail addresses at them, and a listed URL the same URL with any fragment; with `match: 'exact'`
 * an entry matches only itself (a range the addresses in it).
 *
 * @example
 * ```ts
 * const ipsum = await loadLocalList({ name: 'ipsum', file: 'ipsum-level3.txt' });
 * ipsum.lookup(parseIndicator('45.148.10.240'));
 * // { status: 'ok', verdict: 'malicious', score: 1, evidence: ['listed in local list "ipsum" (line 12)'], … }
 * ```
 */
export class LocalList {
  /** The list's name, as evidence shows it. */
  readonly name: string;
  /** The source id results carry: `list:<name>`. */
  readonly id: string;
  /** The verdict for a listed indicator. */
  readonly verdict: LocalListVerdict;
  /** The format the list was read from. */
  readonly format: LocalListFormat;
  /** How the entries match (the `match` option; `exact` for a `misp-warninglist` file, which says so itself). */
  readonly matching: LocalListMatchMode;
  /** The file path, or a description of where the text came from. */
  readonly source: string;
  /** How many distinct entries the list matches with. */
  readonly entries: number;
  /** Entries that repeat an earlier one (kept once, at their first line). */
  readonly duplicates: number;
  /** Lines (or entries) that were not used: not indicators, or malformed. */
  readonly skipped: number;
  /** The first few skipped lines, with why, so that nothing is dropped unnoticed. */
  readonly firstSkipped: readonly SkippedEntry[];
  readonly #matcher = new IndicatorMatcher<number | undefined>();
  /** The name as evidence quotes it, made once: every lookup's evidence carries it. */
  readonly #quotedName: string;

  constructor(contents: LocalListContents) {
    this.name = contents.name;
    this.#quotedName = quote(contents.name);
    this.id = `list:${contents.name}`;
    this.verdict = contents.verdict;
    this.format = contents.format;
    this.matching = contents.matching ?? 'exact';
    this.source = contents.source;
    let offered = 0;
    for (const rule of contents.rules) {
      offered += 1;
      this.#matcher.add(rule);
    }
    this.entries = this.#matcher.size;
    this.duplicates = offered - this.#matcher.size;
    this.skipped = contents.skipped;
    this.firstSkipped = contents.firstSkipped;
  }

  /** Probe and lookup counters of the list's matcher. */
  get stats(): Readonly<MatcherStats> {
    return this.#matcher.stats;
  }

  /**
   * The entry `indicator` is listed under, or undefined. For a URL that parsers read as naming different hosts, a
   * list whose verdict is `clean` answers only when it covers every one of them; a blocklist answers when it
   * covers any.
   */
  match(indicator: Indicator): LocalListMatch | undefined {
    const looked = this.matching === 'host' ? withoutFragment(indicator) : indicator;
    const hit = this.verdict === 'clean' ? this.#matcher.matchEveryReading(looked) : this.#matcher.match(looked);
    if (hit === undefined) return undefined;
    return hit.tag === undefined ? { entry: hit.entry } : { entry: hit.entry, line: hit.tag };
  }

  /**
   * The list's answer in the shape every feed gives: listed -> `ok` with the list's verdict (score 1 malicious,
   * 0.5 suspicious, 0 clean), evidence naming the list and line, tag `local-list`; not listed -> `not_found`.
   */
  lookup(indicator: Indicator): FeedLookupResult {
    const hit = this.match(indicator);
    if (hit === undefined) {
      return answer({ status: 'not_found', verdict: 'unknown', evidence: [`not in local list ${this.#quotedName}`] });
    }
    const where = hit.line === undefined ? undefined : `line ${hit.line}`;
    const what = hit.entry === indicator.value ? undefined : hit.entry;
    const detail = where && what ? `${where}: ${what}` : (where ?? what);
    return answer({
      status: 'ok',
      verdict: this.verdict,
      score: SCORES[this.verdict],
      evidence: [`listed in local list ${this.#quotedName}${detail ? ` (${detail})` : ''}`],
      tags: ['local-list'],
    });
  }
}

/**
 * Loads a local list from its file. Lines that are not indicators are skipped, counted in `skipped` and the first
 * five described in `firstSkipped`; blank lines and `#` comments are not counted.
 *
 * @throws {@link ListLoadError} naming the file when it cannot be read, when the options are invalid, when a CSV
 * column named in `column` is not in the header, or when a `misp-warninglist` file is not a usable warninglist.
 *
 * @example
 * ```ts
 * const urlhaus = await loadLocalList({ name: 'urlhaus', file: 'csv.txt', format: 'csv', column: 'url' });
 * console.log(urlhaus.entries, urlhaus.skipped, urlhaus.firstSkipped);
 * ```
 */
export async function loadLocalList(options: LocalListOptions): Promise<LocalList> {
  // Loaded on first use: reading a file needs Node.js, a list parsed from text (parseLocalList) does not.
  const { describeListFile, readListFile } = await import('./read-list-file.js');
  const source = describeListFile(options.file);
  checkOptions(options, source);
  const text = await readListFile(options.file);
  return parseLocalList(text, { ...options, source });
}

/**
 * Builds a local list from text already in memory, read as {@link loadLocalList} reads a file. `source` names the
 * text in errors and defaults to `local list "<name>"`.
 *
 * @throws {@link ListLoadError} as {@link loadLocalList} does, except for file errors.
 */
export function parseLocalList(text: string, options: Omit<LocalListOptions, 'file'> & { source?: string }): LocalList {
  const source = options.source ?? `local list ${quote(String(options.name))}`;
  checkOptions(options, source);
  const { name, format = 'plain', verdict = 'malicious', match = 'host' } = options;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const skips = new SkipReport();

  if (format === 'misp-warninglist') {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      throw new ListLoadError(source, `not JSON (${(error as Error).message})`, { cause: error });
    }
    const list = compileMispWarninglist(json, source);
    // Entries keep the warninglist's matching (hostname, cidr, …) but answer with this list's name and verdict.
    const rules = list.rules.map((rule) => ({ ...rule, tag: undefined }));
    return new LocalList({
      name,
      verdict,
      format,
      matching: 'exact',
      source,
      rules,
      skipped: list.ignored,
      firstSkipped: list.firstIgnored,
    });
  }

  if (format === 'stix') {
    const { rules, skips: stixSkips } = readStixList(body, source, match);
    return new LocalList({
      name,
      verdict,
      format,
      matching: match,
      source,
      rules,
      skipped: stixSkips.count,
      firstSkipped: stixSkips.first,
    });
  }

  const rules: MatcherRule<number | undefined>[] = [];
  const add = (line: number, text: string): void => {
    const result = localEntryRule(text, line, match);
    if (result.ok) rules.push(result.rule);
    else skips.add(line, text, result.reason);
  };
  if (format === 'plain') readPlain(body, add);
  else readCsvColumn(body, options.column, source, add, skips);
  return new LocalList({
    name,
    verdict,
    format,
    matching: match,
    source,
    rules,
    skipped: skips.count,
    firstSkipped: skips.first,
  });
}

/**
 * The rules of a STIX bundle: one per value its indicators' patterns name. Skipped entries are numbered by their
 * 1-based position in the bundle's `objects` and named by their STIX id.
 */
function readStixList(
  text: string,
  source: string,
  match: LocalListMatchMode,
): { rules: MatcherRule<number | undefined>[]; skips: SkipReport } {
  const read = readStixBundleEntries(text, Date.now());
  if (!read.ok) {
    const problems = read.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
    throw new ListLoadError(source, `not a STIX bundle: ${problems.join('; ')}`);
  }
  const skips = new SkipReport();
  const rules: MatcherRule<number | undefined>[] = [];
  for (const skip of read.value.skipped) skips.add(skip.index + 1, skip.id, skip.reason);
  for (const entry of read.value.entries) {
    for (const found of entry.values) {
      const result = stixEntryRule(found, match);
      if (result.ok) rules.push(result.rule);
      else skips.add(entry.index + 1, entry.id, result.reason);
    }
  }
  return { rules, skips };
}

/** A value of a STIX pattern as a rule: of the pattern's own type, an address range for an address type. */
export function stixEntryRule(found: StixEntryValue, match: LocalListMatchMode): EntryResult<undefined> {
  const quoted = JSON.stringify(found.value.length > 100 ? `${found.value.slice(0, 100)}…` : found.value);
  if ((found.type === 'ipv4' || found.type === 'ipv6') && found.value.includes('/')) {
    const range = parseIpRange(found.value);
    if (!range.ok) return { ok: false, reason: `${found.where} ${quoted}: ${range.reason}` };
    const family = found.type === 'ipv4' ? 4 : 6;
    // An IPv4-mapped IPv6 range is kept as the IPv4 range it covers.
    if (range.range.family !== family && !(family === 6 && range.range.family === 4)) {
      return { ok: false, reason: `${found.where} ${quoted} is not an IPv${family} range` };
    }
    return cidrRule(found.value, match === 'host' ? IP_HOST_TYPES : IP_TYPES, undefined);
  }
  let value: string;
  try {
    value = parseIndicator(found.value, found.type).value;
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error))
      return { ok: false, reason: `${found.where} ${quoted}: ${error.reason}` };
    throw error;
  }
  const rule = match === 'host' ? hostRule(value, found.type, undefined) : undefined;
  return { ok: true, rule: rule ?? { kind: 'exact', value, types: [found.type], entry: value, tag: undefined } };
}

function readPlain(text: string, add: (line: number, text: string) => void): void {
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((raw, index) => {
    const content = raw.replace(TRAILING_COMMENT, '').trim();
    if (content === '' || content.startsWith('#')) return;
    add(index + 1, content);
  });
}

function readCsvColumn(
  text: string,
  column: string | number | undefined,
  source: string,
  add: (line: number, text: string) => void,
  skips: SkipReport,
): void {
  let index = typeof column === 'number' ? column : typeof column === 'string' ? undefined : 0;
  let lastComment: string | undefined;
  for (const row of readCsv(text)) {
    if (row.kind === 'comment') {
      lastComment = row.text;
      continue;
    }
    if (row.kind === 'error') {
      skips.add(row.line, '', row.reason);
      continue;
    }
    if (index === undefined) {
      const name = String(column);
      const inRow = findColumn(row.fields, name);
      if (inRow !== undefined) {
        index = inRow;
        continue;
      }
      const commentHeader = lastComment === undefined ? undefined : firstRecord(lastComment);
      index = commentHeader === undefined ? undefined : findColumn(commentHeader, name);
      if (index === undefined) {
        const seen = [...row.fields, ...(commentHeader ?? [])].map((field) => JSON.stringify(field.trim())).join(', ');
        throw new ListLoadError(
          source,
          `CSV column ${JSON.stringify(name)} is not in the header row (line ${row.line}) or the comment line before ` +
            `it; found ${seen || 'no column names'}`,
        );
      }
    }
    const cell = row.fields[index];
    if (cell === undefined || cell.trim() === '') {
      skips.add(row.line, row.fields.join(','), `has no value in column ${index}`);
      continue;
    }
    add(row.line, cell.trim());
  }
}

function findColumn(fields: readonly string[], name: string): number | undefined {
  const wanted = name.trim();
  const exact = fields.findIndex((field) => field.trim() === wanted);
  if (exact !== -1) return exact;
  const folded = fields.findIndex((field) => field.trim().toLowerCase() === wanted.toLowerCase());
  return folded === -1 ? undefined : folded;
}

function firstRecord(text: string): readonly string[] | undefined {
  for (const row of readCsv(text.trim())) if (row.kind === 'record') return row.fields;
  return undefined;
}

/** An entry of a plain or CSV local list as a rule tagged with its line. */
function localEntryRule(text: string, line: number, match: LocalListMatchMode): EntryResult<number> {
  const refanged = refang(text);
  if (refanged.startsWith('*.')) {
    const host = normaliseHostname(refanged.slice(2));
    if (!host.ok) return { ok: false, reason: `wildcard host name ${host.reason}` };
    const entry = `*.${host.hostname}`;
    return { ok: true, rule: { kind: 'hostname', hostname: host.hostname, types: HOST_TYPES, entry, tag: line } };
  }
  if (CIDR_SHAPE.test(refanged)) return cidrRule(refanged, match === 'host' ? IP_HOST_TYPES : IP_TYPES, line);
  const exact = exactRule(text, INDICATOR_TYPES, line);
  if (match === 'exact' || !exact.ok || exact.rule.kind !== 'exact') return exact;
  const rule = hostRule(exact.rule.value, exact.rule.types[0], line);
  return rule === undefined ? exact : { ok: true, rule };
}

/**
 * The `host`-mode rule for an entry already parsed as an indicator of `type`: an address as a one-address range
 * that URLs on it match too, a domain as a name with everything under it, a URL without its fragment. Undefined for
 * other types, which match exactly.
 */
export function hostRule<T>(value: string, type: IndicatorType | undefined, line: T): MatcherRule<T> | undefined {
  switch (type) {
    case 'ipv4':
    case 'ipv6': {
      const parsed = parseIpRange(value);
      if (!parsed.ok) return undefined;
      // The entry shows the address as listed, not as a /32, so evidence for the address itself names only the line.
      return { kind: 'cidr', range: parsed.range, types: IP_HOST_TYPES, entry: value, tag: line };
    }
    case 'domain':
      return { kind: 'hostname', hostname: value, types: HOST_TYPES, entry: value, tag: line };
    case 'url': {
      const url = stripFragment(value);
      return { kind: 'exact', value: url, types: ['url'], entry: url, tag: line };
    }
    default:
      return undefined;
  }
}

/** A URL indicator without its fragment (the part after `#`, which never leaves the client); others as they are. */
export function withoutFragment(indicator: Indicator): Indicator {
  if (indicator.type !== 'url') return indicator;
  const value = stripFragment(indicator.value);
  return value === indicator.value ? indicator : { ...indicator, value };
}

function stripFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function checkOptions(options: Omit<LocalListOptions, 'file'>, source: string): void {
  const { name, format = 'plain', verdict = 'malicious', column, match } = options;
  // Plain JavaScript callers and config files can pass anything; say what is wrong instead of failing later.
  if (typeof name !== 'string' || name.trim() === '') throw new ListLoadError(source, 'a local list needs a name');
  if (!(LOCAL_LIST_FORMATS as readonly string[]).includes(format)) {
    throw new ListLoadError(
      source,
      `unknown format ${JSON.stringify(format)} (expected one of ${LOCAL_LIST_FORMATS.join(', ')})`,
    );
  }
  if (!Object.hasOwn(SCORES, verdict)) {
    throw new ListLoadError(
      source,
      `unknown verdict ${JSON.stringify(verdict)} (expected malicious, suspicious or clean)`,
    );
  }
  if (match !== undefined && !(LOCAL_LIST_MATCH_MODES as readonly string[]).includes(match)) {
    throw new ListLoadError(
      source,
      `unknown match ${JSON.stringify(match)} (expected one of ${LOCAL_LIST_MATCH_MODES.join(', ')})`,
    );
  }
  if (match !== undefined && format === 'misp-warninglist') {
    throw new ListLoadError(
      source,
      '"match" applies to plain, csv and stix lists; a MISP warninglist says how it matches',
    );
  }
  if (column !== undefined && format !== 'csv') {
    throw new ListLoadError(source, `"column" applies to the csv format only, not ${format}`);
  }
  if (typeof column === 'number' && !(Number.isInteger(column) && column >= 0)) {
    throw new ListLoadError(source, `CSV column index ${column} is not a whole number of 0 or more`);
  }
}

/** Counts skipped lines and keeps the first few, so a load reports what it dropped. */
class SkipReport {
  count = 0;
  readonly first: SkippedEntry[] = [];

  add(line: number, entry: string, reason: string): void {
    this.count += 1;
    if (this.first.length < MAX_REPORTED_SKIPS) this.first.push({ line, entry: entry.slice(0, 100), reason });
  }
}

function quote(text: string): string {
  return JSON.stringify(text);
}
