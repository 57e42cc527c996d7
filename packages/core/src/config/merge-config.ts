/**
 * Deep-merges configuration layers, later layers winning. Plain objects merge key by key; arrays, functions and
 * every other value are replaced whole (a profile's `sources` is not appended to). `undefined` never overrides.
 */
export function mergeConfig<T extends object>(...layers: ReadonlyArray<object | undefined>): T {
  let out: Record<string, unknown> = {};
  for (const layer of layers) {
    if (layer) out = mergeTwo(out, layer as Record<string, unknown>);
  }
  return out as T;
}

function mergeTwo(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = out[key];
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
