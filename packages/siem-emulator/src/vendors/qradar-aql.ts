// The subset of the Ariel Query Language (AQL) the QRadar emulator evaluates over the events its syslog listener
// received: aggregate SELECTs over `events` with a WHERE of comparisons, LIKE/ILIKE and AND/OR/NOT, and a LAST or
// START/STOP time clause; anything else is refused the way Ariel refuses invalid AQL (422, code 2000).
// - AQL overview and functions: https://www.ibm.com/docs/en/qsip/7.5?topic=aql-ariel-query-language
// - Time criteria (LAST, START/STOP; "by default ... the last 60 seconds"): the POST /ariel/searches page of
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--ariel-searches-POST.html
// - Field names (starttime, devicetime, sourceip, destinationip, magnitude, severity, payload with UTF8()):
//   https://www.ibm.com/docs/en/qsip/7.5?topic=language-event-flow-simarc-fields-aql-queries

/** An event as Ariel stores it, for the fields the emulator knows. */
export interface ArielEvent {
  /** Epoch ms when the listener received it. */
  starttime: number;
  /** Epoch ms the event says it happened (LEEF `devTime`), else `starttime`. */
  devicetime: number;
  sourceip: string;
  destinationip: string;
  /** 0–10. */
  magnitude: number;
  severity: number;
  /** The whole message as received (syslog header and all). */
  payload: string;
  /** Custom event properties: the LEEF attributes (property autodetection). */
  properties: Readonly<Record<string, string>>;
}

/** AQL the emulator cannot run: the message Ariel would give. */
export class AqlError extends Error {
  override readonly name = 'AqlError';
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; text: string; at: number }
  | { kind: 'quoted'; text: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'punct'; text: string; at: number };

const EVENT_FIELDS = new Set(['starttime', 'devicetime', 'sourceip', 'destinationip', 'magnitude', 'severity']);
const AGGREGATES = new Set(['MIN', 'MAX', 'COUNT']);
const UNIT_MS: Record<string, number> = { MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000 };

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === "'" || c === '"') {
      const end = query.indexOf(c, i + 1);
      if (end === -1) throw new AqlError(`Unterminated ${c === "'" ? 'string' : 'quoted identifier'} at ${i}`);
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: query.slice(i + 1, end), at: i });
      i = end + 1;
    } else if (/[0-9]/.test(c)) {
      const match = /^[0-9]+/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', text: match[0], at: i });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', text: match[0], at: i });
      i += match[0].length;
    } else if ('(),*='.includes(c)) {
      tokens.push({ kind: 'punct', text: c, at: i });
      i += 1;
    } else {
      throw new AqlError(`Unexpected character ${JSON.stringify(c)} at ${i}`);
    }
  }
  return tokens;
}

type Operand = { kind: 'field'; name: string } | { kind: 'payload' } | { kind: 'property'; name: string };
type Condition =
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; inner: Condition }
  | { kind: 'compare'; operand: Operand; op: '=' | 'LIKE' | 'ILIKE'; value: string };
interface SelectItem {
  aggregate: 'MIN' | 'MAX' | 'COUNT';
  operand: Operand | '*';
  alias: string;
}

/** A parsed query: what to compute, over which events. */
export interface AqlQuery {
  items: SelectItem[];
  where: Condition | undefined;
  /** Inclusive range of `starttime`. */
  from: number;
  to: number;
}

/**
 * Parses the AQL subset. `now` resolves `LAST n DAYS`; `knownProperties` are the custom event properties that
 * exist (a quoted identifier naming any other is refused, as Ariel refuses an unknown property).
 *
 * @throws {AqlError} naming what is wrong.
 */
export function parseAql(query: string, now: number, knownProperties: ReadonlySet<string>): AqlQuery {
  const tokens = tokenize(query);
  let i = 0;
  const peek = () => tokens[i];
  const isWord = (word: string) => {
    const token = peek();
    return token?.kind === 'word' && token.text.toUpperCase() === word;
  };
  const expectWord = (word: string) => {
    if (!isWord(word)) throw new AqlError(`Expected ${word} ${where()}`);
    i += 1;
  };
  const expectPunct = (p: string) => {
    const token = peek();
    if (token?.kind !== 'punct' || token.text !== p) throw new AqlError(`Expected "${p}" ${where()}`);
    i += 1;
  };
  const where = () => {
    const token = peek();
    return token ? `at position ${token.at} (near ${JSON.stringify(token.text)})` : 'at the end of the query';
  };

  const operand = (): Operand => {
    const token = peek();
    if (token?.kind === 'quoted') {
      if (!knownProperties.has(token.text)) {
        throw new AqlError(`"${token.text}" is not a valid event field or custom property`);
      }
      i += 1;
      return { kind: 'property', name: token.text };
    }
    if (token?.kind !== 'word') throw new AqlError(`Expected a field ${where()}`);
    if (token.text.toUpperCase() === 'UTF8') {
      i += 1;
      expectPunct('(');
      const inner = peek();
      if (inner?.kind !== 'word' || inner.text.toLowerCase() !== 'payload') {
        throw new AqlError(`UTF8() takes payload ${where()}`);
      }
      i += 1;
      expectPunct(')');
      return { kind: 'payload' };
    }
    const name = token.text.toLowerCase();
    if (!EVENT_FIELDS.has(name)) throw new AqlError(`${token.text} is not a valid event field`);
    i += 1;
    return { kind: 'field', name };
  };

  const items: SelectItem[] = [];
  expectWord('SELECT');
  for (;;) {
    const token = peek();
    const aggregate = token?.kind === 'word' ? token.text.toUpperCase() : '';
    if (!AGGREGATES.has(aggregate)) throw new AqlError(`Expected MIN, MAX or COUNT ${where()}`);
    i += 1;
    expectPunct('(');
    let arg: Operand | '*';
    if (peek()?.kind === 'punct' && peek()?.text === '*') {
      if (aggregate !== 'COUNT') throw new AqlError(`${aggregate}(*) is not valid`);
      i += 1;
      arg = '*';
    } else {
      arg = operand();
    }
    expectPunct(')');
    let alias = `${aggregate}_${arg === '*' ? 'all' : arg.kind === 'payload' ? 'payload' : arg.name}`;
    if (isWord('AS')) {
      i += 1;
      const name = peek();
      if (name?.kind !== 'word' && name?.kind !== 'quoted') throw new AqlError(`Expected an alias ${where()}`);
      alias = name.text;
      i += 1;
    }
    items.push({ aggregate: aggregate as SelectItem['aggregate'], operand: arg, alias });
    if (peek()?.kind === 'punct' && peek()?.text === ',') {
      i += 1;
      continue;
    }
    break;
  }
  expectWord('FROM');
  if (!isWord('EVENTS')) throw new AqlError(`Only FROM events is supported ${where()}`);
  i += 1;

  const condition = (): Condition => {
    let left = conjunction();
    while (isWord('OR')) {
      i += 1;
      left = { kind: 'or', left, right: conjunction() };
    }
    return left;
  };
  const conjunction = (): Condition => {
    let left = negation();
    while (isWord('AND')) {
      i += 1;
      left = { kind: 'and', left, right: negation() };
    }
    return left;
  };
  const negation = (): Condition => {
    if (isWord('NOT')) {
      i += 1;
      return { kind: 'not', inner: negation() };
    }
    if (peek()?.kind === 'punct' && peek()?.text === '(') {
      i += 1;
      const inner = condition();
      expectPunct(')');
      return inner;
    }
    const left = operand();
    let op: '=' | 'LIKE' | 'ILIKE';
    if (peek()?.kind === 'punct' && peek()?.text === '=') op = '=';
    else if (isWord('LIKE')) op = 'LIKE';
    else if (isWord('ILIKE')) op = 'ILIKE';
    else throw new AqlError(`Expected =, LIKE or ILIKE ${where()}`);
    i += 1;
    const value = peek();
    if (value?.kind !== 'string') throw new AqlError(`Expected a quoted string ${where()}`);
    i += 1;
    return { kind: 'compare', operand: left, op, value: value.text };
  };

  let whereClause: Condition | undefined;
  if (isWord('WHERE')) {
    i += 1;
    whereClause = condition();
  }

  let from = now - 60_000;
  let to = now;
  if (isWord('LAST')) {
    i += 1;
    const count = peek();
    if (count?.kind !== 'number') throw new AqlError(`Expected a number after LAST ${where()}`);
    i += 1;
    const unit = peek()?.kind === 'word' ? (peek()?.text.toUpperCase() ?? '') : '';
    const ms = UNIT_MS[unit];
    if (ms === undefined) throw new AqlError(`Expected MINUTES, HOURS or DAYS ${where()}`);
    i += 1;
    from = now - Number(count.text) * ms;
  } else if (isWord('START')) {
    i += 1;
    from = aqlTime(peek(), where);
    i += 1;
    expectWord('STOP');
    to = aqlTime(peek(), where);
    i += 1;
  }
  if (i < tokens.length) throw new AqlError(`Unexpected ${JSON.stringify(peek()?.text)} ${where()}`);
  return { items, where: whereClause, from, to };
}

function aqlTime(token: Token | undefined, where: () => string): number {
  if (token?.kind === 'string') {
    const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/.exec(token.text);
    if (match) {
      const [, y, mo, d, h, mi, s] = match;
      return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
    }
  }
  if (token?.kind === 'number') return Number(token.text);
  throw new AqlError(`Expected a time as 'yyyy-MM-dd HH:mm' or epoch ms ${where()}`);
}

function fieldValue(event: ArielEvent, operand: Operand): string | number | undefined {
  if (operand.kind === 'payload') return event.payload;
  if (operand.kind === 'property') return event.properties[operand.name];
  return event[operand.name as keyof ArielEvent] as string | number;
}

function likePattern(pattern: string, caseInsensitive: boolean): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\%_]/g, (c) =>
    c === '%' ? '[\\s\\S]*' : c === '_' ? '[\\s\\S]' : `\\${c}`,
  );
  return new RegExp(`^${body}$`, caseInsensitive ? 'i' : '');
}

function matches(event: ArielEvent, condition: Condition): boolean {
  switch (condition.kind) {
    case 'and':
      return matches(event, condition.left) && matches(event, condition.right);
    case 'or':
      return matches(event, condition.left) || matches(event, condition.right);
    case 'not':
      return !matches(event, condition.inner);
    case 'compare': {
      const value = fieldValue(event, condition.operand);
      if (value === undefined) return false;
      if (condition.op === '=') return String(value) === condition.value;
      return likePattern(condition.value, condition.op === 'ILIKE').test(String(value));
    }
  }
}

/** Runs `query` over `events`: one row, each item under its alias (MIN/MAX of nothing is null). */
export function runAql(query: AqlQuery, events: readonly ArielEvent[]): Record<string, number | null> {
  const selected = events.filter(
    (event) =>
      event.starttime >= query.from &&
      event.starttime <= query.to &&
      (query.where === undefined || matches(event, query.where)),
  );
  const row: Record<string, number | null> = {};
  for (const item of query.items) {
    if (item.aggregate === 'COUNT') {
      row[item.alias] =
        item.operand === '*' ? selected.length : selected.filter((e) => fieldValue(e, item.operand as Operand)).length;
      continue;
    }
    const numbers = selected
      .map((event) => Number(fieldValue(event, item.operand as Operand)))
      .filter((n) => Number.isFinite(n));
    row[item.alias] =
      numbers.length === 0 ? null : item.aggregate === 'MIN' ? Math.min(...numbers) : Math.max(...numbers);
  }
  return row;
}
