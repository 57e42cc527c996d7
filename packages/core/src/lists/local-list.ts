// A local list: its options, the list itself (matching and answering as a feed), and how one is loaded from a file
// or parsed from text.
import type { FeedLookupResult } from '../feeds/feed.js';
import { answer } from '../feeds/feed-response.js';
import type { FeedVerdict } from '../feeds/feed-result.js';
import type { Indicator } from '../indicators/indicator.js';
import { localEntryRule, withoutFragment } from './host-rules.js';
import { IndicatorMatcher, type MatcherRule, type MatcherStats } from './indicator-matcher.js';
import { readCsvColumn, readPlain, readStixList, SkipReport } from './list-file-readers.js';
import { ListLoadError } from './list-load-error.js';
import { compileMispWarninglist } from './misp-warninglist.js';
import type { SkippedEntry } from './warninglist.js';

export { hostRule, stixEntryRule, withoutFragment } from './host-rules.js';

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

function quote(text: string): string {
  return JSON.stringify(text);
}
