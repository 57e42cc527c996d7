import { RE2JS } from 're2js';

/**
 * The most instructions a list pattern may compile to. A lookup costs at most about this many steps per character of
 * the value (RE2 keeps one thread per instruction, never a backtracking stack), so the cap bounds a lookup whatever
 * the pattern: the worst patterns we could build at this size took about 8 ms for a 256-character value on a busy
 * two-core machine, while MISP's own regex warninglists compile to 60 instructions at most and a forty-name
 * alternation to about 330.
 */
export const MAX_PATTERN_INSTRUCTIONS = 400;

/** What {@link LinearRegex.compile} made, or why it made nothing. */
export type LinearRegexResult =
  | { readonly ok: true; readonly regex: LinearRegex }
  | { readonly ok: false; readonly reason: string };

/**
 * A regular expression run by RE2's engine (re2js, a pure-JavaScript port), which matches in time linear in the
 * value: it follows every way the pattern can match at once, character by character, so no value can make it
 * backtrack. Made by `compilePcreRegex` from a list entry; nothing else creates one.
 */
export class LinearRegex {
  /** The pattern in RE2 syntax, flags inline (`(?i)^evil\.(com|net)$`). */
  readonly source: string;
  /** How many instructions the pattern compiled to (at most {@link MAX_PATTERN_INSTRUCTIONS}). */
  readonly instructions: number;
  readonly #compiled: RE2JS;

  private constructor(source: string, compiled: RE2JS) {
    this.source = source;
    this.#compiled = compiled;
    this.instructions = compiled.programSize();
  }

  /**
   * Compiles `source`, written in RE2 syntax (https://github.com/google/re2/wiki/Syntax); a pattern RE2 cannot
   * compile, or one larger than {@link MAX_PATTERN_INSTRUCTIONS}, is refused with the reason.
   */
  static compile(source: string): LinearRegexResult {
    let compiled: RE2JS;
    try {
      // Captureless lookbehinds are matched in linear time too (re2js's LOOKBEHINDS mode); lookaheads are not.
      compiled = RE2JS.compile(source, RE2JS.LOOKBEHINDS);
    } catch (error) {
      return { ok: false, reason: `cannot be compiled by RE2: ${(error as Error).message}` };
    }
    const regex = new LinearRegex(source, compiled);
    if (regex.instructions > MAX_PATTERN_INSTRUCTIONS) {
      return { ok: false, reason: tooLarge(`compiles to ${regex.instructions} instructions`) };
    }
    return { ok: true, regex };
  }

  /** Whether the pattern matches anywhere in `value` (as `RegExp.prototype.test` without the `g` flag). */
  test(value: string): boolean {
    return this.#compiled.test(value);
  }

  /** The pattern as a PCRE-style literal, for logs and error messages. */
  toString(): string {
    return `/${this.source}/`;
  }
}

/** The reason given for a pattern over the size cap. */
export function tooLarge(what: string): string {
  return (
    `${what}, more than the ${MAX_PATTERN_INSTRUCTIONS} a list pattern may have (a lookup's cost grows with a ` +
    `pattern's size); split it into several entries`
  );
}
