import { setOwn } from '../records/prototype-keys.js';
import { CacheError } from './cache-error.js';

/**
 * A copy of `value` as a JSON round trip would give it (`toJSON` honoured, so a Date becomes its ISO string;
 * `undefined`, functions and symbols dropped from objects and `null` in arrays; non-finite numbers `null`), made
 * without the round trip: objects and arrays are new, strings are shared. The memory cache keeps and hands out such
 * copies, so callers can mutate what they get, and equal strings across thousands of entries (the same evidence
 * sentence from one feed) are stored once instead of once per serialised entry.
 *
 * @throws {CacheError} for a bigint or a cycle, which JSON cannot hold either.
 */
export function jsonCopy(value: unknown, backend: string): unknown {
  return copy(value, new Set(), backend);
}

function copy(value: unknown, ancestors: Set<object>, backend: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      throw new CacheError('cannot cache a bigint: values must be JSON', { backend });
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (ancestors.has(value)) throw new CacheError('cannot cache a value with a cycle: values must be JSON', { backend });
  ancestors.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => {
      const c = copy(item, ancestors, backend);
      return c === undefined ? null : c;
    });
  } else {
    const object: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const c = copy(item, ancestors, backend);
      // Own, like JSON.parse makes it: `object[key] = c` would make a `__proto__` key the copy's prototype.
      if (c !== undefined) setOwn(object, key, c);
    }
    out = object;
  }
  ancestors.delete(value);
  return out;
}
