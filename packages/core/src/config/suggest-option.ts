import type * as z from 'zod';
import { closestOption, optionKey } from './closest-option.js';
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
      if (optionKey(name) === key) found.push(formatPath(path));
      found.push(...pathsNamed(child, key, path, depth + 1));
    }
  }
  return [...new Set(found)];
}

/**
 * Options users put one level too high, by where they put them: the windows of one feed go under
 * `performance.rateLimit.perFeed.<feed>`, not `performance.rateLimit.<feed>`.
 */
const MISPLACED: ReadonlyArray<{ under: string; key: RegExp; path: (key: string) => string }> = [
  { under: 'performance.rateLimit', key: /^(feed_|list:)/, path: (key) => `performance.rateLimit.perFeed.${key}` },
];

/**
 * The option a user probably meant by the unknown `key` at `parent` of `schema` (any zod object schema: the client's
 * configuration, `APIServer`'s options), as a full path, or undefined when none is close: a known misplacement of
 * the client's configuration (`performance.rateLimit.feed_otx` → `performance.rateLimit.perFeed.feed_otx`), a key of
 * the same object differing in case or separators or by a typo ({@link closestOption}: `performence` →
 * `performance`, `enforceHTTPS` → `enforceHttps`), or the one place the schema has an option of that name
 * (`lockTimeout` at the top → `security.lockTimeout`).
 *
 * @example
 * ```ts
 * const Options = z.strictObject({ rateLimit: z.strictObject({ windowMs: z.number() }).optional() });
 * suggestOption(Options, ['rateLimit'], 'window_ms'); // 'rateLimit.windowMs'
 * suggestOption(Options, [], 'windowMs'); // 'rateLimit.windowMs'
 * ```
 */
export function suggestOption(
  schema: z.core.$ZodType,
  parent: readonly PropertyKey[],
  key: string,
): string | undefined {
  const where = formatPath(parent);
  for (const rule of MISPLACED) if (rule.under === where && rule.key.test(key)) return rule.path(key);

  const siblings = [...new Set(schemasAt(schema, parent).flatMap((s) => objectsOf(s).flatMap(Object.keys)))];
  const sibling = closestOption(key, siblings);
  if (sibling !== undefined) return formatPath([...parent, sibling]);

  const elsewhere = pathsNamed(schema, optionKey(key));
  return elsewhere.length === 1 ? elsewhere[0] : undefined;
}
