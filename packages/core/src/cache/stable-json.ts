/**
 * JSON text of `value` with every object's keys sorted, so two equal option objects written in a different key
 * order give the same text (and so the same cache fingerprint). Follows `JSON.stringify` otherwise (`toJSON` is
 * honoured, `undefined` properties are dropped, `undefined` in an array becomes `null`), except that it refuses what
 * JSON would silently flatten or drop (functions, symbols, bigints, `Map`, `Set`, cycles): two different options
 * must never share a fingerprint because both serialised to `{}`.
 *
 * @example
 * ```ts
 * stableJson({ b: 1, a: [true, { d: 'x', c: null }] }); // '{"a":[true,{"c":null,"d":"x"}],"b":1}'
 * ```
 */
export function stableJson(value: unknown): string {
  return write(value, new Set(), '$');
}

function write(value: unknown, ancestors: Set<object>, path: string): string {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'undefined':
      return 'null';
    case 'object':
      break;
    default:
      throw new TypeError(`stableJson: ${path} is a ${typeof value}, which has no JSON form`);
  }
  if (value === null) return 'null';
  if (value instanceof Map || value instanceof Set) {
    throw new TypeError(`stableJson: ${path} is a ${value.constructor.name}; convert it to an array or object first`);
  }
  if (ancestors.has(value)) throw new TypeError(`stableJson: ${path} refers back to one of its parents`);
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item, index) => write(item, ancestors, `${path}[${index}]`)).join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const fields: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const field = record[key];
      // An absent option and an undefined one mean the same; a function or symbol is refused by `write`.
      if (field === undefined) continue;
      fields.push(`${JSON.stringify(key)}:${write(field, ancestors, `${path}.${key}`)}`);
    }
    text = `{${fields.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}
