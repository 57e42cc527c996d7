// A small interpreter of the Kusto Query Language, enough for the queries @threatlib/siem sends to Log Analytics and
// strict about the rest: a query it cannot read is a syntax error, a name it cannot resolve a semantic error, as
// Log Analytics answers them. This file runs a query (operators, aggregations, the evaluation of expressions and the
// resolution of names); sentinel-kql-parser.ts reads it. Sources:
// - String literals (quotes, backslash escapes \\ \' \" \t \n \r, verbatim @'...' with doubled quotes):
//   https://learn.microsoft.com/en-us/kusto/query/scalar-data-types/string
// - where, mv-expand, summarize (min, max, count), take/limit, count, project:
//   https://learn.microsoft.com/en-us/kusto/query/where-operator, .../mv-expand-operator,
//   .../summarize-operator, .../take-operator, .../count-operator, .../project-operator
// - tostring, todouble, toint, tolong, todatetime, base64_decode_tostring, isempty, isnotempty:
//   https://learn.microsoft.com/en-us/kusto/query/scalar-functions
// - Summarize without `by` over no rows gives one row (count 0, min/max null):
//   https://learn.microsoft.com/en-us/kusto/query/summarize-operator#default-values-of-aggregations

import { type Aggregation, type Expr, KqlError, type KqlType, Parser, tokenize } from './sentinel-kql-parser.js';

export { KqlError } from './sentinel-kql-parser.js';

/** A column of a table or a result, with its Kusto type. */
export interface KqlColumn {
  name: string;
  type: KqlType;
}

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
