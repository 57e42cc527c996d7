// A small interpreter of the Kusto Query Language, enough for the queries @threatlib/siem sends to Log Analytics and
// strict about the rest: a query it cannot read is a syntax error, a name it cannot resolve a semantic error, as
// Log Analytics answers them. Sources:
// - String literals (quotes, backslash escapes \\ \' \" \t \n \r, verbatim @'...' with doubled quotes):
//   https://learn.microsoft.com/en-us/kusto/query/scalar-data-types/string
// - where, mv-expand, summarize (min, max, count), take/limit, count, project:
//   https://learn.microsoft.com/en-us/kusto/query/where-operator, .../mv-expand-operator,
//   .../summarize-operator, .../take-operator, .../count-operator, .../project-operator
// - tostring, todouble, toint, tolong, todatetime, base64_decode_tostring, isempty, isnotempty:
//   https://learn.microsoft.com/en-us/kusto/query/scalar-functions
// - Summarize without `by` over no rows gives one row (count 0, min/max null):
//   https://learn.microsoft.com/en-us/kusto/query/summarize-operator#default-values-of-aggregations

/** A column of a table or a result, with its Kusto type. */
export interface KqlColumn {
  name: string;
  type: KqlType;
}

/** The Kusto types the interpreter knows. */
type KqlType = 'string' | 'datetime' | 'real' | 'long' | 'int' | 'bool' | 'dynamic';

/** A table: its columns and rows (objects keyed by column name). */
export interface KqlTable {
  columns: readonly KqlColumn[];
  rows: ReadonlyArray<Record<string, unknown>>;
}

/** A query result in Log Analytics' shape: columns, and rows as arrays in column order. */
export interface KqlResult {
  columns: KqlColumn[];
  rows: unknown[][];
}

/** A query Log Analytics would refuse: `syntax` (SYN0002) or `semantic` (SEM0100 and kin). */
export class KqlError extends Error {
  readonly kind: 'syntax' | 'semantic';
  readonly code: string;

  constructor(kind: 'syntax' | 'semantic', code: string, message: string) {
    super(message);
    this.name = 'KqlError';
    this.kind = kind;
    this.code = code;
  }
}

type Token =
  | { kind: 'ident'; text: string; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; value: number; text: string; pos: number }
  | { kind: 'punct'; text: string; pos: number }
  | { kind: 'end'; pos: number };

type Expr =
  | { kind: 'literal'; value: unknown; type: KqlType }
  | { kind: 'column'; name: string }
  | { kind: 'member'; target: Expr; name: string }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'binary'; op: string; left: Expr; right: Expr };

interface Aggregation {
  name: string;
  fn: 'min' | 'max' | 'count';
  arg: Expr | undefined;
}

/** Runs `query` over `tables` (rows already limited to the query's time span) and returns the result. */
export function runKql(query: string, tables: ReadonlyMap<string, KqlTable>): KqlResult {
  const parser = new Parser(tokenize(query));
  const tableName = parser.ident('a table name');
  const table = tables.get(tableName);
  if (!table) {
    throw new KqlError(
      'semantic',
      'SEM0100',
      `'${tableName}' operator: Failed to resolve table or column expression named '${tableName}'`,
    );
  }
  let columns: KqlColumn[] = [...table.columns];
  let rows: Array<Record<string, unknown>> = table.rows.map((row) => ({ ...row }));
  while (parser.accept('|')) {
    const operator = parser.operatorName();
    switch (operator) {
      case 'where': {
        const predicate = parser.expression();
        check(predicate, columns, 'where');
        rows = rows.filter((row) => evaluate(predicate, row) === true);
        break;
      }
      case 'mv-expand': {
        const name = parser.ident('a column name');
        // `mv-expand Alias = Column` or `mv-expand Column`.
        const alias = name;
        const source: Expr = parser.accept('=') ? parser.expression() : { kind: 'column', name };
        check(source, columns, 'mv-expand');
        rows = rows.flatMap((row) => {
          const value = evaluate(source, row);
          const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
          return items.map((item) => ({ ...row, [alias]: item }));
        });
        columns = [...columns.filter((c) => c.name !== alias), { name: alias, type: 'dynamic' }];
        break;
      }
      case 'summarize': {
        const aggregations = parser.aggregations();
        for (const a of aggregations) if (a.arg) check(a.arg, columns, 'summarize');
        const result: Record<string, unknown> = {};
        const resultColumns: KqlColumn[] = [];
        for (const a of aggregations) {
          result[a.name] = aggregate(a, rows);
          resultColumns.push({ name: a.name, type: a.fn === 'count' ? 'long' : typeOf(a.arg, columns) });
        }
        rows = [result];
        columns = resultColumns;
        break;
      }
      case 'take':
      case 'limit': {
        const n = parser.number();
        rows = rows.slice(0, n);
        break;
      }
      case 'count': {
        rows = [{ Count: rows.length }];
        columns = [{ name: 'Count', type: 'long' }];
        break;
      }
      case 'project': {
        const names = [parser.ident('a column name')];
        while (parser.accept(',')) names.push(parser.ident('a column name'));
        const kept: KqlColumn[] = [];
        for (const name of names) {
          const column = columns.find((c) => c.name === name);
          if (!column) throw unresolved('project', name);
          kept.push(column);
        }
        columns = kept;
        break;
      }
      default:
        parser.fail();
    }
  }
  parser.expectEnd();
  return {
    columns,
    rows: rows.map((row) => columns.map((c) => output(row[c.name], c.type))),
  };
}

/** The value as Log Analytics writes it in JSON: datetimes in ISO 8601 UTC, missing values as null. */
function output(value: unknown, type: KqlType): unknown {
  if (value === undefined || value === null) return type === 'string' ? '' : null;
  if (type === 'datetime') {
    const time = toTime(value);
    return time === undefined ? null : new Date(time).toISOString();
  }
  return value;
}

function aggregate(a: Aggregation, rows: ReadonlyArray<Record<string, unknown>>): unknown {
  if (a.fn === 'count') return rows.length;
  let best: unknown = null;
  let bestKey: number | string | undefined;
  for (const row of rows) {
    const value = a.arg ? evaluate(a.arg, row) : undefined;
    if (value === null || value === undefined || value === '') continue;
    const key = typeof value === 'number' ? value : (toTime(value) ?? String(value));
    if (bestKey === undefined || (a.fn === 'min' ? compare(key, bestKey) < 0 : compare(key, bestKey) > 0)) {
      best = value;
      bestKey = key;
    }
  }
  return best;
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function toTime(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

function evaluate(expr: Expr, row: Record<string, unknown>): unknown {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'column':
      return row[expr.name] ?? null;
    case 'member': {
      const target = evaluate(expr.target, row);
      return typeof target === 'object' && target !== null && !Array.isArray(target)
        ? ((target as Record<string, unknown>)[expr.name] ?? null)
        : null;
    }
    case 'call':
      return call(
        expr.name,
        expr.args.map((arg) => evaluate(arg, row)),
      );
    case 'binary': {
      if (expr.op === 'and') return evaluate(expr.left, row) === true && evaluate(expr.right, row) === true;
      if (expr.op === 'or') return evaluate(expr.left, row) === true || evaluate(expr.right, row) === true;
      const left = evaluate(expr.left, row);
      const right = evaluate(expr.right, row);
      if (expr.op === '==') return equal(left, right);
      if (expr.op === '!=') return !equal(left, right);
      if (left === null || right === null) return null;
      const l = typeof left === 'number' ? left : (toTime(left) ?? String(left));
      const r = typeof right === 'number' ? right : (toTime(right) ?? String(right));
      const c = compare(l, r);
      return expr.op === '<' ? c < 0 : expr.op === '>' ? c > 0 : expr.op === '<=' ? c <= 0 : c >= 0;
    }
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return false;
  return typeof a === typeof b && a === b;
}

function call(name: string, args: unknown[]): unknown {
  const [value] = args;
  switch (name) {
    case 'tostring':
      if (value === null || value === undefined) return '';
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'todouble':
    case 'toreal': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
      return Number.isFinite(n) ? n : null;
    }
    case 'toint':
    case 'tolong': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
      return Number.isFinite(n) ? Math.trunc(n) : null;
    }
    case 'todatetime': {
      const time = toTime(value);
      return time === undefined ? null : new Date(time).toISOString();
    }
    case 'base64_decode_tostring':
      return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : null;
    case 'isempty':
      return value === null || value === undefined || value === '';
    case 'isnotempty':
      return !(value === null || value === undefined || value === '');
    default:
      throw new KqlError('semantic', 'SEM0260', `Unknown function: '${name}'.`);
  }
}

const FUNCTIONS: Record<string, KqlType> = {
  tostring: 'string',
  todouble: 'real',
  toreal: 'real',
  toint: 'int',
  tolong: 'long',
  todatetime: 'datetime',
  base64_decode_tostring: 'string',
  isempty: 'bool',
  isnotempty: 'bool',
};

function typeOf(expr: Expr | undefined, columns: readonly KqlColumn[]): KqlType {
  if (!expr) return 'dynamic';
  switch (expr.kind) {
    case 'literal':
      return expr.type;
    case 'column':
      return columns.find((c) => c.name === expr.name)?.type ?? 'dynamic';
    case 'member':
      return 'dynamic';
    case 'call':
      return FUNCTIONS[expr.name] ?? 'dynamic';
    case 'binary':
      return 'bool';
  }
}

/** Resolves every name in `expr` against `columns`, as Kusto does before running. */
function check(expr: Expr, columns: readonly KqlColumn[], operator: string): void {
  switch (expr.kind) {
    case 'column':
      if (!columns.some((c) => c.name === expr.name)) throw unresolved(operator, expr.name);
      return;
    case 'member':
      check(expr.target, columns, operator);
      return;
    case 'call':
      if (!(expr.name in FUNCTIONS)) throw new KqlError('semantic', 'SEM0260', `Unknown function: '${expr.name}'.`);
      for (const arg of expr.args) check(arg, columns, operator);
      return;
    case 'binary':
      check(expr.left, columns, operator);
      check(expr.right, columns, operator);
      return;
    case 'literal':
      return;
  }
}

function unresolved(operator: string, name: string): KqlError {
  return new KqlError(
    'semantic',
    'SEM0100',
    `'${operator}' operator: Failed to resolve scalar expression named '${name}'`,
  );
}

class Parser {
  readonly #tokens: Token[];
  #at = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  get #peek(): Token {
    return this.#tokens[this.#at] as Token;
  }

  accept(text: string): boolean {
    const token = this.#peek;
    if ((token.kind === 'punct' || token.kind === 'ident') && token.text === text) {
      this.#at++;
      return true;
    }
    return false;
  }

  ident(what: string): string {
    const token = this.#peek;
    if (token.kind !== 'ident') this.fail(what);
    this.#at++;
    return (token as { text: string }).text;
  }

  number(): number {
    const token = this.#peek;
    if (token.kind !== 'number' || !Number.isInteger(token.value) || token.value < 0) this.fail('a whole number');
    this.#at++;
    return (token as { value: number }).value;
  }

  /** An operator name after `|`: `where`, `mv-expand`... */
  operatorName(): string {
    let name = this.ident('a query operator');
    while (this.#peek.kind === 'punct' && (this.#peek as { text: string }).text === '-') {
      this.#at++;
      name += `-${this.ident('a query operator')}`;
    }
    return name;
  }

  aggregations(): Aggregation[] {
    const list: Aggregation[] = [];
    do {
      let name: string | undefined;
      let fn = this.ident('an aggregation');
      if (this.accept('=')) {
        name = fn;
        fn = this.ident('an aggregation');
      }
      if (fn !== 'min' && fn !== 'max' && fn !== 'count') {
        throw new KqlError('semantic', 'SEM0219', `summarize operator: unknown aggregation function '${fn}'`);
      }
      this.expect('(');
      let arg: Expr | undefined;
      if (!this.accept(')')) {
        arg = this.expression();
        this.expect(')');
      }
      if (fn !== 'count' && !arg) this.fail('an argument');
      const fallback = fn === 'count' ? 'count_' : `${fn}_${arg?.kind === 'column' ? arg.name : 'x'}`;
      list.push({ name: name ?? fallback, fn, arg });
    } while (this.accept(','));
    return list;
  }

  expression(): Expr {
    let left = this.#and();
    while (this.accept('or')) left = { kind: 'binary', op: 'or', left, right: this.#and() };
    return left;
  }

  #and(): Expr {
    let left = this.#comparison();
    while (this.accept('and')) left = { kind: 'binary', op: 'and', left, right: this.#comparison() };
    return left;
  }

  #comparison(): Expr {
    const left = this.#primary();
    for (const op of ['==', '!=', '<=', '>=', '<', '>']) {
      if (this.accept(op)) return { kind: 'binary', op, left, right: this.#primary() };
    }
    return left;
  }

  #primary(): Expr {
    const token = this.#peek;
    if (token.kind === 'string') {
      this.#at++;
      return { kind: 'literal', value: token.value, type: 'string' };
    }
    if (token.kind === 'number') {
      this.#at++;
      return { kind: 'literal', value: token.value, type: Number.isInteger(token.value) ? 'long' : 'real' };
    }
    if (this.accept('(')) {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (token.kind !== 'ident') this.fail('an expression');
    this.#at++;
    const name = (token as { text: string }).text;
    if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true', type: 'bool' };
    let expr: Expr;
    if (this.accept('(')) {
      const args: Expr[] = [];
      if (!this.accept(')')) {
        do args.push(this.expression());
        while (this.accept(','));
        this.expect(')');
      }
      expr = { kind: 'call', name, args };
    } else {
      expr = { kind: 'column', name };
    }
    while (this.accept('.')) expr = { kind: 'member', target: expr, name: this.ident('a property name') };
    return expr;
  }

  expect(text: string): void {
    if (!this.accept(text)) this.fail(`'${text}'`);
  }

  expectEnd(): void {
    if (this.#peek.kind !== 'end') this.fail('the end of the query');
  }

  fail(_expected?: string): never {
    const token = this.#peek;
    const text =
      token.kind === 'end'
        ? '<EOF>'
        : token.kind === 'string'
          ? JSON.stringify(token.value)
          : (token as { text: string }).text;
    throw new KqlError('syntax', 'SYN0002', `Query could not be parsed at '${text}' on line [1,${token.pos}]`);
  }
}

/** Splits a query into tokens; a string literal is decoded by Kusto's rules. */
function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const syntax = (at: number, text: string): never => {
    throw new KqlError('syntax', 'SYN0002', `Query could not be parsed at '${text}' on line [1,${at}]`);
  };
  while (i < query.length) {
    const ch = query[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (query.startsWith('//', i)) {
      while (i < query.length && query[i] !== '\n') i++;
      continue;
    }
    const start = i;
    if (ch === '@' && (query[i + 1] === "'" || query[i + 1] === '"')) {
      const quote = query[i + 1] as string;
      i += 2;
      let value = '';
      for (;;) {
        if (i >= query.length || query[i] === '\n' || query[i] === '\r') syntax(start, query.slice(start, i));
        if (query[i] === quote) {
          if (query[i + 1] === quote) {
            value += quote;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += query[i];
        i++;
      }
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    if (ch === "'" || ch === '"') {
      i++;
      let value = '';
      for (;;) {
        if (i >= query.length || query[i] === '\n' || query[i] === '\r') syntax(start, query.slice(start, i));
        const c = query[i] as string;
        if (c === ch) {
          i++;
          break;
        }
        if (c === '\\') {
          const next = query[i + 1];
          const escapes: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', t: '\t', n: '\n', r: '\r' };
          if (next === undefined || !(next in escapes)) syntax(i, query.slice(i, i + 2));
          value += escapes[next as string];
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', value: Number(match[0]), text: match[0], pos: start });
      i += match[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'ident', text: match[0], pos: start });
      i += match[0].length;
      continue;
    }
    const two = query.slice(i, i + 2);
    if (['==', '!=', '<=', '>='].includes(two)) {
      tokens.push({ kind: 'punct', text: two, pos: start });
      i += 2;
      continue;
    }
    if ('|(),.=<>-'.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch, pos: start });
      i++;
      continue;
    }
    syntax(start, ch);
  }
  tokens.push({ kind: 'end', pos: query.length });
  return tokens;
}
