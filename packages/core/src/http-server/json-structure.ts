/** What {@link checkJsonStructure} found wrong with a JSON text's structure. */
export type JsonStructureFault =
  | {
      kind: 'too-deep';
      /** The nesting limit that was passed. */
      limit: number;
      /** Where the limit was passed: object keys and array indexes, from the root. */
      path: ReadonlyArray<string | number>;
    }
  | {
      kind: 'duplicate-key';
      /** The key, decoded, that an object has twice. */
      key: string;
      /** The object holding it: keys and indexes from the root (empty for the root object). */
      path: ReadonlyArray<string | number>;
    };

interface Frame {
  object: boolean;
  /** Keys seen so far in this object; made when the second key arrives (most objects in a request have one). */
  keys: Set<string> | undefined;
  first: string | undefined;
  /** The key being read, or the index of the element being read. */
  at: string | number;
  expectKey: boolean;
}

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Checks a JSON text's nesting depth and whether an object repeats a key, in one pass over the text, before it is
 * parsed: `JSON.parse` keeps the last of two equal keys without a word, and anything that walks a parsed value
 * recursively (a validation schema, `JSON.stringify`) overflows the stack on a value nested a few thousand deep.
 *
 * The walk is iterative and skips string contents with `indexOf`, so it costs little next to the parse. It trusts
 * the text to be JSON: on a text that is not, it may stop early or report a fault the parser would also refuse, but
 * never throws. Keys are compared decoded (`"a"` and `"\u0061"` are the same key).
 *
 * @returns the first fault, or undefined when the structure is within the limit and every key is unique
 */
export function checkJsonStructure(text: string, maxDepth: number): JsonStructureFault | undefined {
  const stack: Frame[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= maxDepth) return { kind: 'too-deep', limit: maxDepth, path: pathOf(stack) };
      stack.push({ object: c === OPEN_OBJECT, keys: undefined, first: undefined, at: 0, expectKey: c === OPEN_OBJECT });
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      i++;
    } else if (c === COMMA) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
      i++;
    } else if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) return undefined;
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        const key = decodeKey(text, i, end);
        if (key === undefined) return undefined;
        top.expectKey = false;
        if (top.first === undefined) top.first = key;
        else {
          top.keys ??= new Set([top.first]);
          if (top.keys.has(key)) return { kind: 'duplicate-key', key, path: pathOf(stack).slice(0, -1) };
          top.keys.add(key);
        }
        top.at = key;
      }
      i = end + 1;
    } else {
      i++;
    }
  }
  return undefined;
}

/** The index of the quote that closes a string whose contents start at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let j = quote - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

function decodeKey(text: string, open: number, close: number): string | undefined {
  const raw = text.slice(open + 1, close);
  if (raw.indexOf('\\') < 0) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

function pathOf(stack: readonly Frame[]): Array<string | number> {
  return stack.map((frame) => frame.at);
}
