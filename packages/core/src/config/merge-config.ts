import { ConfigurationError } from '../errors/configuration-error.js';
import { prototypeKeyPath } from '../records/prototype-keys.js';

/**
 * Deep-merges configuration layers, later layers winning. Plain objects merge key by key; arrays, functions and
 * every other value are replaced whole (a profile's `sources` is not appended to). `undefined` never overrides.
 *
 * @throws {ConfigurationError} when a layer has a `__proto__`, `constructor` or `prototype` key at any depth (see
 *   {@link checkConfigKeys}): merged, it would replace an object's prototype instead of setting an option.
 */
export function mergeConfig<T extends object>(...layers: ReadonlyArray<object | undefined>): T {
  let out: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    checkConfigKeys(layer);
    out = mergeTwo(out, layer as Record<string, unknown>);
  }
  return out as T;
}

/**
 * Refuses a configuration (or a layer of one) with a `__proto__`, `constructor` or `prototype` key anywhere in its
 * plain objects. No option has such a name, and a configuration read from JSON can hold one as an ordinary key:
 * copied or merged, `__proto__` would replace an object's prototype, whose fields validation would then read as if
 * they were options (and `z.record` maps, `apiKeys` or `headers`, would drop the key without a word).
 *
 * @throws {ConfigurationError} `Configuration invalid: <path>: "__proto__" is not an option: ...`.
 */
export function checkConfigKeys(config: unknown): void {
  const path = prototypeKeyPath(config);
  if (path === undefined) return;
  const key = path.slice(path.lastIndexOf('.') + 1);
  throw new ConfigurationError([
    {
      path,
      message: `"${key}" is not an option: a key that names an object's prototype is refused anywhere in a configuration; remove it`,
    },
  ]);
}

function mergeTwo(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeTwo(current, value) : value;
  }
  return out;
}

/** Whether `value` is an object literal (not an array, class instance, function or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
