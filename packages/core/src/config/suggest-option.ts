import type { z } from 'zod';
import { formatPath } from './format-path.js';

/** A schema as zod describes itself: its kind and, by kind, what it holds. */
interface Definition {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  options?: z.core.$ZodType[];
}

const definition = (schema: z.core.$ZodType) => schema._zod.def as unknown as Definition;

/** The object schemas `schema` may be, through wrappers, pipes and unions. */
function objectsOf(schema: z.core.$ZodType): Array<Record<string, z.core.$ZodType>> {
  const def = definition(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return def.innerType ? objectsOf(def.innerType) : [];
    case 'pipe':
      return def.in ? objectsOf(def.in) : [];
    case 'object':
      return def.shape ? [def.shape] : [];
    case 'union':
      return (def.options ?? []).flatMap(objectsOf);
    default:
      return [];
  }
}

/** The schemas found at `path` below `schema` (a record's value for any key, an array's element for any index). */
function schemasAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType[] {
  let current: z.core.$ZodType[] = [schema];
  for (const part of path) {
    const next: z.core.$ZodType[] = [];
    for (const s of current) {
      const def = unwrapped(s);
      if (def.type === 'record' && def.valueType) next.push(def.valueType);
      else if (def.type === 'array' && def.element && typeof part === 'number') next.push(def.element);
      else for (const shape of objectsOf(s)) if (typeof part === 'string' && shape[part]) next.push(shape[part]);
    }
    current = next;
  }
  return current;
}

function unwrapped(schema: z.core.$ZodType): Definition {
  const def = definition(schema);
  if (def.innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(def.type)) {
    return unwrapped(def.innerType);
  }
  if (def.type === 'pipe' && def.in) return unwrapped(def.in);
  return def;
}

/** Every option path of `schema` whose last key is `key` (records and arrays not entered: their keys are data). */
function pathsNamed(schema: z.core.$ZodType, key: string, prefix: readonly PropertyKey[] = [], depth = 0): string[] {
  if (depth > 6) return [];
  const found: string[] = [];
  for (const shape of objectsOf(schema)) {
    for (const [name, child] of Object.entries(shape)) {
      const path = [...prefix, name];
      if (normalised(name) === key) found.push(formatPath(path));
      found.push(...pathsNamed(child, key, path, depth + 1));
    }
  }
  return [...new Set(found)];
}

/** A key compared without case or separators: `max_concurrency` and `maxConcurrency` are one name. */
function normalised(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The optimal string alignment distance (Levenshtein with adjacent transpositions) between `a` and `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * Options users put one level too high, by where they put them: the windows of one feed go under
 * `performance.rateLimit.perFeed.<feed>`, not `performance.rateLimit.<feed>`.
 */
const MISPLACED: ReadonlyArray<{ under: string; key: RegExp; path: (key: string) => string }> = [
  { under: 'performance.rateLimit', key: /^(feed_|list:)/, path: (key) => `performance.rateLimit.perFeed.${key}` },
];

/**
 * The option a user probably meant by the unknown `key` at `parent`, as a full path, or undefined when none is
 * close: a known misplacement (`performance.rateLimit.feed_otx` → `performance.rateLimit.perFeed.feed_otx`), a key
 * of the same object within a typo or two (`performence` → `performance`, `enforceHTTPS` → `enforceHttps`), or the
 * one place the schema has an option of that name (`lockTimeout` at the top → `security.lockTimeout`).
 */
export function suggestOption(
  schema: z.core.$ZodType,
  parent: readonly PropertyKey[],
  key: string,
): string | undefined {
  const where = formatPath(parent);
  for (const rule of MISPLACED) if (rule.under === where && rule.key.test(key)) return rule.path(key);

  const wanted = normalised(key);
  const siblings = [...new Set(schemasAt(schema, parent).flatMap((s) => objectsOf(s).flatMap(Object.keys)))];
  const allowed = wanted.length <= 4 ? 1 : wanted.length <= 8 ? 2 : 3;
  let best: { name: string; distance: number } | undefined;
  for (const name of siblings) {
    const distance = editDistance(wanted, normalised(name));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  if (best) return formatPath([...parent, best.name]);

  const elsewhere = pathsNamed(schema, wanted);
  return elsewhere.length === 1 ? elsewhere[0] : undefined;
}
