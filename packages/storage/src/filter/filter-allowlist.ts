import { type ConfigurationIssue, ValidationError } from '@threatlib/core';
import { PROTOTYPE_KEYS } from '@threatlib/core/integration';
import { asDate, DATE_FIELDS } from './date-fields.js';

/** A query filter: field paths to values or operator objects, and the logical operators. */
export type StorageFilter = Record<string, unknown>;

/** Operators allowed on a field: comparisons, membership, existence and negation. */
export const FIELD_OPERATORS: ReadonlySet<string> = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$not',
]);

/** Operators allowed where a filter is: each takes a non-empty array of filters. */
export const LOGICAL_OPERATORS: ReadonlySet<string> = new Set(['$and', '$or', '$nor']);

/** Operators refused with a reason of their own: they make the server run code or evaluate expressions. */
export const REFUSED_OPERATORS: Readonly<Record<string, string>> = {
  $where: 'it runs JavaScript on the server',
  $function: 'it runs JavaScript on the server',
  $accumulator: 'it runs JavaScript on the server',
  $expr: 'it evaluates aggregation expressions on the server',
};

/** How large a filter may be: deeper or larger filters are refused before anything is sent. */
export const FILTER_LIMITS = Object.freeze({
  /** Objects and arrays nested in one another. */
  maxDepth: 16,
  /** Keys and values in the whole filter. */
  maxNodes: 2_000,
  /** Elements of one array (`$in`, `$and`...). */
  maxArray: 1_000,
  /** Characters of one field path. */
  maxFieldPath: 512,
});

type Kind = 'filter' | 'condition' | 'operators' | 'literal';

interface Task {
  kind: Kind;
  value: unknown;
  /** Where the value is, for errors: `$and[0].results.confidence.$gte`. */
  path: string;
  depth: number;
  /** The top-level field the value compares with, when it is a date field whose ISO strings become dates. */
  dateField: string | undefined;
  assign: (value: unknown) => void;
}

/**
 * Checks a query filter against the allowlist and returns a copy fit to send: ISO 8601 strings compared with a date
 * field (`scanDate`, `expiresAt`, `firstSeen`, `lastSeen`, see `DATE_FIELDS`) become dates. Allowed are field paths
 * with a value (equality) or with the operators of {@link FIELD_OPERATORS}, and {@link LOGICAL_OPERATORS} of
 * filters. Everything else that starts with `$` is refused, `$where`, `$function`, `$accumulator` and `$expr`
 * included, wherever it sits, as are values that are not JSON-like data (functions, regular expressions, class
 * instances other than `Date`) and filters past {@link FILTER_LIMITS}. A `__proto__`, `constructor` or `prototype`
 * key is refused anywhere (a field name, a segment of a field path, a key among operators or inside a value): JSON
 * makes them ordinary keys, and a copy made by assignment would turn `{"__proto__": {"severity": "high"}}` into `{}`,
 * a filter that matches everything. The copy returned is made of objects without a prototype. The check walks the
 * filter without recursion, so no filter can exhaust the stack.
 *
 * @example
 * ```ts
 * checkFilter({ 'results.confidence': { $gte: 80 }, scanDate: { $gte: '2026-03-01T00:00:00Z' } });
 * // → { 'results.confidence': { $gte: 80 }, scanDate: { $gte: new Date('2026-03-01T00:00:00Z') } }
 * checkFilter({ $where: 'sleep(100)' }); // throws: Invalid storage filter: $where: $where is refused: it runs ...
 * ```
 *
 * @throws {ValidationError} `Invalid storage filter: <path>: <reason>`, naming the refused key and where it is.
 */
export function checkFilter(filter: unknown, dateFields: ReadonlySet<string> = DATE_FIELDS): StorageFilter {
  let result: StorageFilter = {};
  const stack: Task[] = [
    {
      kind: 'filter',
      value: filter,
      path: '',
      depth: 0,
      dateField: undefined,
      assign: (value) => {
        result = value as StorageFilter;
      },
    },
  ];
  let nodes = 0;
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    nodes += 1;
    if (nodes > FILTER_LIMITS.maxNodes) refuse('', `more than ${FILTER_LIMITS.maxNodes} keys and values`);
    if (task.depth > FILTER_LIMITS.maxDepth) refuse(task.path, `nested deeper than ${FILTER_LIMITS.maxDepth} levels`);
    switch (task.kind) {
      case 'filter':
        checkQuery(task, stack, dateFields);
        break;
      case 'condition':
        checkCondition(task, stack);
        break;
      case 'operators':
        checkOperators(task, stack);
        break;
      case 'literal':
        checkLiteral(task, stack);
        break;
    }
  }
  return result;
}

/** A filter document: logical operators and field paths. */
function checkQuery(task: Task, stack: Task[], dateFields: ReadonlySet<string>): void {
  const { value, path, depth } = task;
  if (!isPlainObject(value)) refuse(path, `expected a filter object, got ${describe(value)}`);
  const out: StorageFilter = Object.create(null);
  task.assign(out);
  for (const [key, child] of Object.entries(value)) {
    const at = join(path, key);
    checkKey(key, at);
    if (key.startsWith('$')) {
      if (!LOGICAL_OPERATORS.has(key)) refuseOperator(key, at, 'where a filter is');
      const filters = arrayOf(child, at, 'filters', true);
      const copies: unknown[] = new Array(filters.length);
      out[key] = copies;
      filters.forEach((element, i) => {
        stack.push({
          kind: 'filter',
          value: element,
          path: `${at}[${i}]`,
          depth: depth + 2,
          dateField: undefined,
          assign: (v) => (copies[i] = v),
        });
      });
      continue;
    }
    checkFieldPath(key, at);
    const dateField = !key.includes('.') && dateFields.has(key) ? key : undefined;
    stack.push({
      kind: 'condition',
      value: child,
      path: at,
      depth: depth + 1,
      dateField,
      assign: (v) => (out[key] = v),
    });
  }
}

/** What a field is compared with: an operator object, or a value to be equal to. */
function checkCondition(task: Task, stack: Task[]): void {
  const { value } = task;
  if (isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$'))) {
    stack.push({ ...task, kind: 'operators' });
    return;
  }
  stack.push({ ...task, kind: 'literal' });
}

/** An operator object on a field: `{$gte: 80, $lt: 100}`. */
function checkOperators(task: Task, stack: Task[]): void {
  const { value, path, depth, dateField } = task;
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    refuse(path, `expected an object of operators such as {"$gte": 80}, got ${describe(value)}`);
  }
  const out: Record<string, unknown> = Object.create(null);
  task.assign(out);
  for (const [key, operand] of Object.entries(value)) {
    const at = join(path, key);
    checkKey(key, at);
    if (!key.startsWith('$')) {
      refuse(at, `"${key}" is a field name among operators: an object is either operators or a value to be equal to`);
    }
    if (!FIELD_OPERATORS.has(key)) refuseOperator(key, at, 'on a field');
    const child = (kind: Kind, v: unknown, p: string, assign: (x: unknown) => void): Task => ({
      kind,
      value: v,
      path: p,
      depth: depth + 1,
      dateField,
      assign,
    });
    switch (key) {
      case '$exists':
        if (typeof operand !== 'boolean') refuse(at, `expected true or false, got ${describe(operand)}`);
        out[key] = operand;
        break;
      case '$not':
        if (!isPlainObject(operand) || !Object.keys(operand).every((k) => k.startsWith('$'))) {
          refuse(at, `expected an object of operators such as {"$gte": 80}, got ${describe(operand)}`);
        }
        stack.push(child('operators', operand, at, (v) => (out[key] = v)));
        break;
      case '$in':
      case '$nin': {
        const values = arrayOf(operand, at, 'values', false);
        const copies: unknown[] = new Array(values.length);
        out[key] = copies;
        values.forEach((element, i) => {
          stack.push(child('literal', element, `${at}[${i}]`, (v) => (copies[i] = v)));
        });
        break;
      }
      default:
        stack.push(child('literal', operand, at, (v) => (out[key] = v)));
    }
  }
}

/** A value: JSON-like data (and dates), with no key starting with `$` anywhere in it. */
function checkLiteral(task: Task, stack: Task[]): void {
  const { value, path, depth, dateField } = task;
  if (dateField !== undefined && typeof value === 'string') {
    const date = asDate(value);
    if (date === undefined)
      refuse(path, `${dateField} is a date: expected an ISO 8601 date-time, got ${describe(value)}`);
    task.assign(date);
    return;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    task.assign(value);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) refuse(path, `expected a finite number, got ${String(value)}`);
    task.assign(value);
    return;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) refuse(path, 'an invalid Date');
    task.assign(value);
    return;
  }
  // Nested values are plain data: dates inside them keep the form they were given in.
  if (Array.isArray(value)) {
    if (value.length > FILTER_LIMITS.maxArray) refuse(path, `more than ${FILTER_LIMITS.maxArray} elements`);
    const copies: unknown[] = new Array(value.length);
    task.assign(copies);
    value.forEach((element, i) => {
      stack.push({
        kind: 'literal',
        value: element,
        path: `${path}[${i}]`,
        depth: depth + 1,
        dateField: undefined,
        assign: (v) => (copies[i] = v),
      });
    });
    return;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = Object.create(null);
    task.assign(out);
    for (const [key, child] of Object.entries(value)) {
      const at = join(path, key);
      checkKey(key, at);
      if (key.startsWith('$')) refuseOperator(key, at, 'inside a value');
      stack.push({
        kind: 'literal',
        value: child,
        path: at,
        depth: depth + 1,
        dateField: undefined,
        assign: (v) => (out[key] = v),
      });
    }
    return;
  }
  refuse(path, `expected a string, number, boolean, null, date, array or plain object, got ${describe(value)}`);
}

function checkFieldPath(key: string, at: string): void {
  if (key.length === 0) refuse(at, 'an empty field name');
  if (key.length > FILTER_LIMITS.maxFieldPath)
    refuse(at, `a field path longer than ${FILTER_LIMITS.maxFieldPath} characters`);
  if (key.includes('\0')) refuse(at, 'a field path with a NUL character');
  for (const segment of key.split('.')) {
    if (segment.length === 0) refuse(at, `"${key}" has an empty segment`);
    if (segment.startsWith('$')) refuseOperator(segment, at, 'in a field path');
    checkKey(segment, at);
  }
}

/** Refuses a key (or a field path's segment) that names an object's prototype machinery. */
function checkKey(key: string, at: string): void {
  if (PROTOTYPE_KEYS.has(key)) {
    refuse(
      at,
      `"${key}" is refused: it names an object's prototype, not a field (a copy would lose it and match everything)`,
    );
  }
}

function arrayOf(value: unknown, at: string, what: string, nonEmpty: boolean): unknown[] {
  if (!Array.isArray(value)) refuse(at, `expected an array of ${what}, got ${describe(value)}`);
  if (nonEmpty && value.length === 0) refuse(at, `expected a non-empty array of ${what}`);
  if (value.length > FILTER_LIMITS.maxArray) refuse(at, `more than ${FILTER_LIMITS.maxArray} ${what}`);
  return value;
}

function refuseOperator(key: string, at: string, where: string): never {
  const reason = Object.hasOwn(REFUSED_OPERATORS, key) ? REFUSED_OPERATORS[key] : undefined;
  if (reason !== undefined) refuse(at, `${key} is refused: ${reason}`);
  const allowed = where === 'where a filter is' ? LOGICAL_OPERATORS : FIELD_OPERATORS;
  const hint =
    where === 'inside a value' || where === 'in a field path' ? '' : `; allowed here: ${[...allowed].join(' ')}`;
  refuse(at, `${key} is not an allowed operator ${where}${hint}`);
}

function refuse(path: string, message: string): never {
  const issue: ConfigurationIssue = { path: path || '(root)', message };
  throw new ValidationError('storage filter', [issue]);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof RegExp) return 'a regular expression';
  if (typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
    return name && name !== 'Object' ? `a ${name}` : 'an object';
  }
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return typeof value;
}
