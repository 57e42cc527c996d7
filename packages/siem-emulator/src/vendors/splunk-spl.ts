// The subset of Splunk's Search Processing Language the emulator evaluates over the events it received, strict
// about everything else: a `search` clause (index=, sourcetype=, source=, host=, field=value, quoted phrases and
// bare terms, implicit AND, OR (which binds tighter than AND, as in SPL), NOT, parentheses, `*` wildcards), then
// any of `where match(<field>, "<regex>")`, `spath output=<name> path=<path>`, `head <n>` and
// `stats <fn>(<field>) [AS <name>] ...` with count, min, max, sum, avg and dc. Anything else is refused with the
// message Splunk gives for a search it cannot parse.
// Search reference: https://help.splunk.com/en/splunk-enterprise/search/spl-search-reference

/** An event as the emulator indexed it. */
export interface IndexedEvent {
  /** Epoch seconds. */
  time: number;
  index: string;
  source: string;
  sourcetype: string;
  host: string;
  /** The event as Splunk keeps it: a string event as it is, an object event as its JSON. */
  raw: string;
}

/** A row of results: what Splunk's JSON gives, every value a string. */
export type ResultRow = Record<string, string>;

/** A search Splunk would refuse, with its message. */
export class SplError extends Error {}

type Token = { kind: 'word' | 'string' | 'lparen' | 'rparen' | 'eq'; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'lparen' : 'rparen', text: c });
      i++;
    } else if (c === '=') {
      tokens.push({ kind: 'eq', text: c });
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new SplError('Unbalanced quotes.');
        const d = text[i] as string;
        if (d === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (d === '"') {
          i++;
          break;
        } else {
          value += d;
          i++;
        }
      }
      tokens.push({ kind: 'string', text: value });
    } else {
      let word = '';
      while (i < text.length && !/[\s()="]/.test(text[i] as string)) word += text[i++];
      tokens.push({ kind: 'word', text: word });
    }
  }
  return tokens;
}

/** Splits a search at the pipes that are not inside quotes. */
function splitPipeline(search: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < search.length; i++) {
    const c = search[i] as string;
    if (c === '\\' && quoted) {
      current += c + (search[i + 1] ?? '');
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === '|' && !quoted) {
      parts.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  if (quoted) throw new SplError('Unbalanced quotes.');
  parts.push(current.trim());
  return parts;
}

type Predicate = (event: IndexedEvent) => boolean;

function wildcard(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, (c) => `\\${c}`))
    .join('.*');
  return new RegExp(body, 'i');
}

const METADATA = new Set(['index', 'sourcetype', 'source', 'host']);

function fieldOf(event: IndexedEvent, field: string): string | undefined {
  if (METADATA.has(field)) return event[field as 'index'];
  try {
    const value = pathValue(JSON.parse(event.raw), field);
    return value === undefined || value === null ? undefined : String(value);
  } catch {
    return undefined;
  }
}

function pathValue(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Parses the `search` clause into a predicate. */
function parseSearch(text: string): Predicate {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const unit = (): Predicate => {
    const token = tokens[at++];
    if (!token) throw new SplError("Error in 'search' command: Unable to parse the search: unexpected end of search.");
    if (token.kind === 'word' && token.text.toUpperCase() === 'NOT') {
      const inner = unit();
      return (e) => !inner(e);
    }
    if (token.kind === 'lparen') {
      const inner = and();
      if (tokens[at++]?.kind !== 'rparen') {
        throw new SplError("Error in 'search' command: Unable to parse the search: unbalanced parentheses.");
      }
      return inner;
    }
    if (token.kind === 'rparen' || token.kind === 'eq') {
      throw new SplError(`Error in 'search' command: Unable to parse the search: unexpected '${token.text}'.`);
    }
    if (peek()?.kind === 'eq') {
      if (token.kind !== 'word') {
        throw new SplError("Error in 'search' command: Unable to parse the search: a field name cannot be quoted.");
      }
      at++;
      const value = tokens[at++];
      if (!value || (value.kind !== 'word' && value.kind !== 'string')) {
        throw new SplError(`Error in 'search' command: Unable to parse the search: no value for ${token.text}.`);
      }
      const pattern = new RegExp(`^${wildcard(value.text).source}$`, 'i');
      const field = token.text;
      return (e) => {
        const actual = fieldOf(e, field);
        return actual !== undefined && pattern.test(actual);
      };
    }
    const pattern = wildcard(token.text);
    return (e) => pattern.test(e.raw);
  };
  const or = (): Predicate => {
    const parts = [unit()];
    while (peek()?.kind === 'word' && peek()?.text === 'OR') {
      at++;
      parts.push(unit());
    }
    return parts.length === 1 ? (parts[0] as Predicate) : (e) => parts.some((p) => p(e));
  };
  const and = (): Predicate => {
    const parts: Predicate[] = [];
    while (at < tokens.length && peek()?.kind !== 'rparen') {
      if (peek()?.kind === 'word' && peek()?.text === 'AND') {
        at++;
        continue;
      }
      parts.push(or());
    }
    return (e) => parts.every((p) => p(e));
  };
  const predicate = and();
  if (at < tokens.length) {
    throw new SplError("Error in 'search' command: Unable to parse the search: unbalanced parentheses.");
  }
  return predicate;
}

interface Row {
  event: IndexedEvent;
  extracted: Record<string, string>;
}

type Stage = (rows: Row[]) => Row[] | ResultRow[];

function valueIn(row: Row, field: string): string | undefined {
  if (field === '_raw') return row.event.raw;
  if (field === '_time') return String(row.event.time);
  return row.extracted[field] ?? fieldOf(row.event, field);
}

function parseWhere(args: string): Stage {
  const match = /^match\(\s*([\w.]+)\s*,\s*("(?:[^"\\]|\\.)*")\s*\)$/.exec(args.trim());
  if (!match) {
    throw new SplError(
      `Error in 'where' command: The emulator evaluates only match(<field>, "<regex>"), not: ${args.trim()}`,
    );
  }
  const field = match[1] as string;
  const literal = tokenize(match[2] as string)[0]?.text ?? '';
  let regex: RegExp;
  try {
    regex = new RegExp(literal);
  } catch {
    throw new SplError(`Error in 'where' command: The regex '${literal}' is invalid.`);
  }
  return (rows) =>
    (rows as Row[]).filter((row) => {
      const value = valueIn(row, field);
      return value !== undefined && regex.test(value);
    });
}

function parseSpath(args: string): Stage {
  const options = Object.fromEntries(
    [...args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)].map((m) => [m[1], tokenize(m[2] as string)[0]?.text ?? '']),
  );
  const rest = args.replace(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g, '').trim();
  if (rest || !options.path || Object.keys(options).some((k) => k !== 'path' && k !== 'output')) {
    throw new SplError(`Error in 'spath' command: Invalid argument: ${args.trim()}`);
  }
  const path = options.path as string;
  const output = options.output ?? path;
  return (rows) =>
    (rows as Row[]).map((row) => {
      let value: unknown;
      try {
        value = pathValue(JSON.parse(row.event.raw), path);
      } catch {
        value = undefined;
      }
      if (value === undefined || value === null || typeof value === 'object') return row;
      return { ...row, extracted: { ...row.extracted, [output]: String(value) } };
    });
}

function parseHead(args: string): Stage {
  const n = Number(args.trim() || '10');
  if (!Number.isInteger(n) || n < 0) throw new SplError(`Error in 'head' command: Invalid count: ${args.trim()}`);
  return (rows) => (rows as Row[]).slice(0, n);
}

const STATS_FUNCTIONS = new Set(['count', 'min', 'max', 'sum', 'avg', 'dc']);

function parseStats(args: string): Stage {
  if (/\bby\b/i.test(args))
    throw new SplError("Error in 'stats' command: The emulator does not evaluate 'by' clauses.");
  const specs: { fn: string; field: string | undefined; name: string }[] = [];
  const pattern = /(\w+)(?:\(([\w.]*)\))?(?:\s+(?:AS|as)\s+(\w+))?/gy;
  let rest = args.trim();
  while (rest) {
    pattern.lastIndex = 0;
    const m = pattern.exec(rest);
    if (!m) throw new SplError(`Error in 'stats' command: The argument '${rest}' is invalid.`);
    const fn = (m[1] as string).toLowerCase();
    if (!STATS_FUNCTIONS.has(fn)) throw new SplError(`Error in 'stats' command: Unknown function '${m[1]}'.`);
    const field = m[2] || undefined;
    if (fn !== 'count' && field === undefined) {
      throw new SplError(`Error in 'stats' command: The '${fn}' function requires a field.`);
    }
    specs.push({ fn, field, name: m[3] ?? (field === undefined ? fn : `${fn}(${field})`) });
    rest = rest.slice(m[0].length).trim().replace(/^,\s*/, '');
  }
  if (specs.length === 0) throw new SplError("Error in 'stats' command: This command requires at least one function.");
  return (rows) => {
    const result: ResultRow = {};
    for (const { fn, field, name } of specs) {
      const values = (rows as Row[])
        .map((row) => (field === undefined ? '' : valueIn(row, field)))
        .filter((v): v is string => v !== undefined);
      if (fn === 'count') {
        result[name] = String(field === undefined ? rows.length : values.length);
        continue;
      }
      if (fn === 'dc') {
        result[name] = String(new Set(values).size);
        continue;
      }
      const numbers = values.map(Number).filter((n) => Number.isFinite(n));
      if (numbers.length === 0) continue;
      const value =
        fn === 'min'
          ? Math.min(...numbers)
          : fn === 'max'
            ? Math.max(...numbers)
            : fn === 'sum'
              ? numbers.reduce((a, b) => a + b, 0)
              : numbers.reduce((a, b) => a + b, 0) / numbers.length;
      result[name] = String(value);
    }
    return [result];
  };
}

/** Runs `search` over `events` (already limited to the time range) and returns the result rows. */
export function runSearch(search: string, events: readonly IndexedEvent[]): ResultRow[] {
  const [first = '', ...commands] = splitPipeline(search);
  const head = /^search\s+([\s\S]*)$/i.exec(first);
  if (!head) {
    throw new SplError(
      `Error in 'search' command: The emulator evaluates searches that start with the search command, not: ${first.split(/\s/)[0] ?? ''}`,
    );
  }
  const predicate = parseSearch(head[1] ?? '');
  const stages = commands.map((command) => {
    const [name = '', ...rest] = command.split(/\s+/);
    const args = rest.join(' ');
    switch (name) {
      case 'where':
        return parseWhere(args);
      case 'spath':
        return parseSpath(args);
      case 'head':
        return parseHead(args);
      case 'stats':
        return parseStats(args);
      default:
        throw new SplError(`Unknown search command '${name}'.`);
    }
  });
  // Splunk returns events newest first.
  let rows: Row[] | ResultRow[] = events
    .filter(predicate)
    .sort((a, b) => b.time - a.time)
    .map((event) => ({ event, extracted: {} }));
  for (const stage of stages) {
    if (!isEventRows(rows)) throw new SplError('The emulator evaluates no command after stats.');
    rows = stage(rows);
  }
  if (!isEventRows(rows)) return rows;
  return rows.map(({ event, extracted }) => ({
    _raw: event.raw,
    _time: new Date(event.time * 1000).toISOString(),
    index: event.index,
    source: event.source,
    sourcetype: event.sourcetype,
    host: event.host,
    ...extracted,
  }));
}

function isEventRows(rows: Row[] | ResultRow[]): rows is Row[] {
  return rows.length === 0 || 'event' in (rows[0] as object);
}
