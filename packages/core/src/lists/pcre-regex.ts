// PCRE patterns as PHP's preg_match takes them (delimiters, modifiers), compiled to a linear-time RE2 expression.
import { LinearRegex, MAX_PATTERN_INSTRUCTIONS, tooLarge } from './linear-regex.js';
import { Converter } from './pcre-converter.js';
import { UnsupportedPattern } from './pcre-escapes.js';

/** The outcome of {@link compilePcreRegex}: a linear-time regular expression with the same meaning, or why there is none. */
export type PcreResult =
  | { readonly ok: true; readonly regex: LinearRegex }
  | { readonly ok: false; readonly reason: string };

// Compiling costs about as much as the program it makes (some 2 µs an instruction), and RE2 lets a counted repeat
// multiply a piece up to 1,000 times: so a pattern whose size, counted while it is read, is far past the cap is
// refused before it is compiled. The margin leaves room for what RE2 simplifies away (`a|b|c` is one instruction).
const MAX_ESTIMATED_INSTRUCTIONS = 25 * MAX_PATTERN_INSTRUCTIONS;

const BRACKET_DELIMITERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/**
 * Converts a PCRE pattern as PHP's `preg_match` takes it (`/^evil\.(com|net)$/i`, any delimiter) into the same
 * pattern in RE2 syntax, compiled by RE2's linear-time engine (see {@link LinearRegex}): however a value is made, a
 * lookup costs at most a fixed number of steps per character, never the exponential backtracking a PCRE or
 * JavaScript engine can be driven into (`/^([a-z0-9-]+\.?)+\.evil\.example$/` on `aaaa…a.com`).
 *
 * What needs backtracking is refused with a reason: back-references (`\1`, `\k<name>`, `(?P=name)`), lookaheads
 * (`(?=…)`, `(?!…)`), atomic groups, possessive quantifiers, recursion, conditionals, `\G`, `\K`. So are the
 * `x` modifier, a pattern that compiles to more than {@link MAX_PATTERN_INSTRUCTIONS} instructions, and anything
 * RE2 cannot compile (`\p{L&}`, a repeat count over 1,000). Lookbehinds without captures inside are kept.
 *
 * @example
 * ```ts
 * compilePcreRegex('/^(?P<host>[a-z]+)\\.example$/i'); // { ok: true, regex: LinearRegex /(?i)^(?P<host>[a-z]+)\.example$/ }
 * compilePcreRegex('/^(a+)\\1$/'); // { ok: false, reason: 'has the back-reference \\1, which needs a backtracking engine: …' }
 * ```
 */
export function compilePcreRegex(text: string): PcreResult {
  const delimited = splitDelimiters(text.trim());
  if (!delimited.ok) return delimited;
  const modifiers = translateModifiers(delimited.modifiers);
  if (!modifiers.ok) return modifiers;
  let converted: { source: string; estimate: number };
  try {
    converted = new Converter(delimited.pattern).convert();
  } catch (error) {
    if (error instanceof UnsupportedPattern) return { ok: false, reason: error.message };
    throw error;
  }
  if (converted.estimate > MAX_ESTIMATED_INSTRUCTIONS) {
    return { ok: false, reason: tooLarge(`would compile to about ${converted.estimate} instructions`) };
  }
  const body = modifiers.anchored ? `\\A(?:${converted.source})` : converted.source;
  return LinearRegex.compile(modifiers.flags === '' ? body : `(?${modifiers.flags})${body}`);
}

type Delimited = { ok: true; pattern: string; modifiers: string } | { ok: false; reason: string };

function splitDelimiters(text: string): Delimited {
  const open = text[0];
  if (open === undefined) return { ok: false, reason: 'is empty' };
  // preg_match's own rule: the delimiter is the first character and must not be alphanumeric, a backslash or space.
  if (/[a-z0-9\\\s]/i.test(open)) {
    return {
      ok: false,
      reason: 'does not start with a delimiter; write it as PHP preg_match takes it, such as /pattern/flags',
    };
  }
  const close = BRACKET_DELIMITERS[open] ?? open;
  let depth = 0;
  for (let i = 1; i < text.length; i += 1) {
    const character = text[i];
    if (character === '\\') {
      i += 1;
    } else if (character === close && depth === 0) {
      return { ok: true, pattern: text.slice(1, i), modifiers: text.slice(i + 1) };
    } else if (close !== open && character === open) {
      depth += 1;
    } else if (close !== open && character === close) {
      depth -= 1;
    }
  }
  return { ok: false, reason: `has no closing delimiter "${close}"` };
}

type Modifiers = { ok: true; flags: string; anchored: boolean } | { ok: false; reason: string };

function translateModifiers(modifiers: string): Modifiers {
  let flags = '';
  let anchored = false;
  for (const modifier of modifiers) {
    switch (modifier) {
      // RE2 has PCRE's i, m and s, and U (ungreedy), which only changes what a match spans, not whether one exists.
      case 'i':
      case 'm':
      case 's':
      case 'U':
        if (!flags.includes(modifier)) flags += modifier;
        break;
      case 'A':
        anchored = true;
        break;
      // u (UTF-8) is always on; D only changes `$` before a final newline, which indicators never contain; S and X
      // tune or tighten compilation without changing what matches.
      case 'u':
      case 'D':
      case 'S':
      case 'X':
        break;
      case 'x':
        return { ok: false, reason: 'uses the "x" (extended) modifier, which RE2 does not have' };
      default:
        return { ok: false, reason: `has the unknown or unsupported modifier "${modifier}"` };
    }
  }
  return { ok: true, flags, anchored };
}
