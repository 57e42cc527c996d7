import { type ConfigurationIssue, ValidationError } from '@threatlib/core';
import { asDate, DATE_FIELDS } from '../filter/date-fields.js';

/** Objects and arrays nested in one another in a stored record (MongoDB's own limit is 100). */
const MAX_DEPTH = 64;

/**
 * A copy of a record fit to store: plain data only (JSON-like values and dates), no field name that starts with `$`
 * or holds a NUL and no `__proto__` field at any depth, no top-level field name with a `.`, and the top-level date
 * fields (`DATE_FIELDS`) given as ISO 8601 strings turned into dates. Walks without recursion, so no record can
 * exhaust the stack.
 *
 * A `__proto__` field is refused rather than stored: JSON makes it an ordinary key, but every copy made by assignment
 * (this one's, a reader's, a driver's) turns it into the object's prototype, so what was stored would not be what
 * comes back. `constructor` and `prototype` are stored as the fields they are.
 *
 * @throws {ValidationError} `Invalid <subject>: <path>: <reason>` naming the first field that cannot be stored.
 */
export function storableRecord(record: unknown, subject: string): Record<string, unknown> {
  if (!isPlainObject(record)) refuse(subject, '(root)', `expected an object, got ${kindOf(record)}`);
  const out: Record<string, unknown> = {};
  const stack: Array<{ value: unknown; path: string; depth: number; assign: (v: unknown) => void }> = [];
  for (const [key, value] of Object.entries(record)) {
    checkKey(subject, key, key, true);
    if (DATE_FIELDS.has(key) && (typeof value === 'string' || value instanceof Date)) {
      const date = asDate(value);
      if (date === undefined) refuse(subject, key, `a date: expected an ISO 8601 date-time or a valid Date`);
      out[key] = date;
      continue;
    }
    stack.push({ value, path: key, depth: 1, assign: (v) => (out[key] = v) });
  }
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    const { value, path, depth, assign } = task;
    if (depth > MAX_DEPTH) refuse(subject, path, `nested deeper than ${MAX_DEPTH} levels`);
    if (value === null || typeof value === 'string' || typeof value === 'boolean') assign(value);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(subject, path, `expected a finite number, got ${value}`);
      assign(value);
    } else if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) refuse(subject, path, 'an invalid Date');
      assign(value);
    } else if (Array.isArray(value)) {
      const copy: unknown[] = new Array(value.length);
      assign(copy);
      value.forEach((element, i) => {
        stack.push({ value: element, path: `${path}[${i}]`, depth: depth + 1, assign: (v) => (copy[i] = v) });
      });
    } else if (isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      assign(copy);
      for (const [key, child] of Object.entries(value)) {
        checkKey(subject, key, `${path}.${key}`, false);
        // `undefined` is left out, as JSON leaves it out.
        if (child === undefined) continue;
        stack.push({ value: child, path: `${path}.${key}`, depth: depth + 1, assign: (v) => (copy[key] = v) });
      }
    } else if (value === undefined) {
      // An optional field left undefined: not stored.
    } else {
      refuse(subject, path, `expected JSON-like data or a Date, got ${kindOf(value)}`);
    }
  }
  for (const [key, value] of Object.entries(out)) if (value === undefined) delete out[key];
  return out;
}

function checkKey(subject: string, key: string, path: string, topLevel: boolean): void {
  if (key === '__proto__') {
    refuse(subject, path, 'a field named "__proto__" is refused: a copy of the record would make it its prototype');
  }
  if (key.startsWith('$')) refuse(subject, path, `a field name may not start with "$"`);
  if (key.includes('\0')) refuse(subject, path, 'a field name may not hold a NUL character');
  if (topLevel && key.includes('.')) refuse(subject, path, 'a top-level field name may not hold a "."');
  if (topLevel && key === '_id') refuse(subject, path, 'the store sets _id; give "id" instead');
}

function refuse(subject: string, path: string, message: string): never {
  const issue: ConfigurationIssue = { path, message };
  throw new ValidationError(subject, [issue]);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
    return name && name !== 'Object' ? `a ${name}` : 'an object';
  }
  return typeof value;
}
