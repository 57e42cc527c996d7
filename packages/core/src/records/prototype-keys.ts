/**
 * The keys that name an object's prototype machinery rather than data: `__proto__` (assigning it replaces the
 * object's prototype, so the value is lost and its fields become inherited ones that validation still reads),
 * `constructor` and `prototype` (through which a merge reaches `Object.prototype`). JSON.parse makes them ordinary
 * own keys; a copy made with `out[key] = value` or `Object.assign` does not keep them so.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Sets `key` on `target` as an own, enumerable, writable data property, whatever the key: what `target[key] = value`
 * does for every key but `__proto__`, for which it replaces the prototype instead. For copies of user data
 * key by key.
 *
 * @example
 * ```ts
 * const out = {};
 * setOwn(out, '__proto__', { admin: true });
 * Object.keys(out); // ['__proto__']; Object.getPrototypeOf(out) is still Object.prototype
 * ```
 */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}

/**
 * Where the first key of `keys` (default {@link PROTOTYPE_KEYS}) is in `value`, as a path (`metadata.x[2].__proto__`),
 * or undefined when there is none. Only plain objects (their own keys) and arrays are searched, without recursion
 * (no depth can exhaust the stack) and each object once (cycles end): the work is linear in the value's size, like
 * serialising it.
 *
 * @example
 * ```ts
 * prototypeKeyPath(JSON.parse('{"a":[{"__proto__":{}}]}')); // 'a[0].__proto__'
 * prototypeKeyPath({ constructor: 1 }, new Set(['__proto__'])); // undefined
 * ```
 */
export function prototypeKeyPath(value: unknown, keys: ReadonlySet<string> = PROTOTYPE_KEYS): string | undefined {
  // Each item knows its parent and its key or index; a path is spelt only for the key found.
  interface Item {
    value: unknown;
    parent: Item | undefined;
    step: string | number;
  }
  const spell = (item: Item | undefined, key: string): string => {
    const steps: Array<string | number> = [key];
    for (let at = item; at?.parent !== undefined; at = at.parent) steps.push(at.step);
    let text = '';
    for (let i = steps.length - 1; i >= 0; i--) {
      const step = steps[i] as string | number;
      text = typeof step === 'number' ? `${text}[${step}]` : text === '' ? step : `${text}.${step}`;
    }
    return text;
  };
  const stack: Item[] = [{ value, parent: undefined, step: '' }];
  const seen = new Set<object>();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: item, step: i });
      continue;
    }
    const proto = Object.getPrototypeOf(current);
    if (proto !== Object.prototype && proto !== null) continue;
    const own = Object.keys(current);
    for (const key of own) if (keys.has(key)) return spell(item, key);
    for (let i = own.length - 1; i >= 0; i--) {
      const key = own[i] as string;
      stack.push({ value: (current as Record<string, unknown>)[key], parent: item, step: key });
    }
  }
  return undefined;
}
