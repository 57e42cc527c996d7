import { LinearRegex, MAX_PATTERN_INSTRUCTIONS, tooLarge } from './linear-regex.js';

/** The outcome of {@link compilePcreRegex}: a linear-time regular expression with the same meaning, or why there is none. */
export type PcreResult =
  | { readonly ok: true; readonly regex: LinearRegex }
  | { readonly ok: false; readonly reason: string };

// Compiling costs about as much as the program it makes (some 2 µs an instruction), and RE2 lets a counted repeat
// multiply a piece up to 1,000 times: so a pattern whose size, counted while it is read, is far past the cap is
// refused before it is compiled. The margin leaves room for what RE2 simplifies away (`a|b|c` is one instruction).
const MAX_ESTIMATED_INSTRUCTIONS = 25 * MAX_PATTERN_INSTRUCTIONS;

const BRACKET_DELIMITERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

// The ASCII punctuation RE2 lets a backslash make literal; PCRE escapes any non-alphanumeric character freely.
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;

// PCRE's `\v` and `\h` are classes, whereas RE2's `\v` is the vertical-tab character.
const VERTICAL_SPACE = String.raw`\n\x0B\f\r\x{85}\x{2028}\x{2029}`;
const HORIZONTAL_SPACE = String.raw`\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`;

// PCRE's POSIX classes, which RE2 has under the same names (`[[:alpha:]]`, `[[:^alpha:]]`).
const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'word',
  'xdigit',
]);

const NEEDS_BACKTRACKING =
  'which needs a backtracking engine: list patterns run on RE2, whose lookups take time linear in the value, so ' +
  'that no entry can stall one';

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

class UnsupportedPattern extends Error {}

/** The instructions counted so far in one group (or the whole pattern), for the size estimate. */
interface SizeFrame {
  /** The alternatives before the current one. */
  done: number;
  /** The current alternative. */
  branch: number;
  /** The last atom of the current alternative (a quantifier after it repeats this much). */
  last: number;
}

/**
 * Rewrites PCRE syntax into the equivalent RE2 syntax, token by token, and counts about how many instructions the
 * result compiles to (a counted repeat multiplies what it repeats), so that a huge pattern is never compiled.
 */
class Converter {
  readonly #pattern: string;
  #at = 0;
  #out = '';
  // Whether the last token emitted was a quantifier (`+` after it would make it possessive).
  #afterQuantifier = false;
  readonly #frames: SizeFrame[] = [{ done: 0, branch: 0, last: 0 }];
  // Capturing groups opened so far, which decides whether `\12` is a back-reference or an octal escape.
  #captures = 0;

  constructor(pattern: string) {
    this.#pattern = pattern;
  }

  convert(): { source: string; estimate: number } {
    while (this.#at < this.#pattern.length) this.#token();
    const root = this.#frames[0] as SizeFrame;
    return { source: this.#out, estimate: root.done + root.branch };
  }

  get #frame(): SizeFrame {
    return this.#frames[this.#frames.length - 1] as SizeFrame;
  }

  /** Emits an atom (a character, a class, an assertion) of about `size` instructions. */
  #atom(text: string, size = 1): void {
    this.#out += text;
    this.#frame.branch += size;
    this.#frame.last = size;
  }

  #token(): void {
    const p = this.#pattern;
    const character = p[this.#at] ?? '';
    if (this.#afterQuantifier && character === '+') {
      throw new UnsupportedPattern(`has a possessive quantifier at offset ${this.#at}, ${NEEDS_BACKTRACKING}`);
    }
    this.#afterQuantifier = false;
    switch (character) {
      case '\\':
        this.#escape();
        return;
      case '[':
        this.#atom(this.#characterClass());
        return;
      case '(':
        this.#group();
        return;
      case ')':
        this.#closeGroup();
        return;
      case '|': {
        const frame = this.#frame;
        frame.done += frame.branch + 1;
        frame.branch = 0;
        frame.last = 0;
        this.#out += '|';
        this.#at += 1;
        return;
      }
      case '*':
      case '+':
      case '?':
        this.#at += 1;
        this.#quantifier(character, 1);
        return;
      case '{': {
        const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.#at));
        if (quantifier) {
          const [whole, least = '0', comma, most = ''] = quantifier;
          this.#at += whole.length;
          // `{n}` makes n copies, `{n,m}` m, `{n,}` n and a star.
          const copies = comma === undefined ? Number(least) : most === '' ? Number(least) + 1 : Number(most);
          this.#quantifier(whole, this.#frame.last * Math.max(copies - 1, 0) + 1);
        } else {
          // PCRE reads a brace that does not start a quantifier as a literal.
          this.#atom('\\{');
          this.#at += 1;
        }
        return;
      }
      case '}':
      case ']':
        this.#atom(`\\${character}`);
        this.#at += 1;
        return;
      case '^':
      case '$':
      case '.':
        this.#atom(character);
        this.#at += 1;
        return;
      default: {
        // One code point, so that a quantifier after an astral character repeats all of it.
        const codePoint = String.fromCodePoint(p.codePointAt(this.#at) ?? 0);
        this.#atom(codePoint);
        this.#at += codePoint.length;
      }
    }
  }

  /** Emits a quantifier (already consumed) that adds about `size` instructions, and a lazy `?` after it. */
  #quantifier(text: string, size: number): void {
    this.#out += text;
    this.#frame.branch += size;
    if (this.#pattern[this.#at] === '?') {
      this.#out += '?';
      this.#at += 1;
    } else {
      this.#afterQuantifier = true;
    }
  }

  #openGroup(text: string): void {
    this.#out += text;
    this.#frames.push({ done: 0, branch: 0, last: 0 });
  }

  #closeGroup(): void {
    this.#out += ')';
    this.#at += 1;
    // An unbalanced `)` is left for RE2 to refuse.
    if (this.#frames.length === 1) return;
    const frame = this.#frames.pop() as SizeFrame;
    const size = frame.done + frame.branch + 2;
    this.#frame.branch += size;
    this.#frame.last = size;
  }

  #group(): void {
    const rest = this.#pattern.slice(this.#at);
    // A capturing group, a non-capturing one, a lookbehind (re2js matches those without captures in linear time).
    const plain = /^\((?![?*])|^\(\?(?::|<[=!])/.exec(rest);
    if (plain) {
      if (plain[0] === '(') this.#captures += 1;
      this.#openGroup(plain[0]);
      this.#at += plain[0].length;
      return;
    }
    const named = /^\(\?(?:P?<|')([A-Za-z_][A-Za-z0-9_]*)[>']/.exec(rest);
    if (named) {
      this.#captures += 1;
      this.#openGroup(`(?P<${named[1]}>`);
      this.#at += named[0].length;
      return;
    }
    if (rest.startsWith('(?#')) {
      const end = rest.indexOf(')');
      if (end === -1) throw new UnsupportedPattern('has an unterminated (?# comment');
      this.#at += end + 1;
      return;
    }
    if (/^\(\?(?:R|[+-]?\d+|&\w+|P>\w+)\)/.test(rest)) {
      throw new UnsupportedPattern(`has recursion or a subroutine call, ${NEEDS_BACKTRACKING}`);
    }
    const inline = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest);
    if (inline) {
      const [whole, on = '', off = '', end] = inline;
      const unsupported = [...on, ...off].find((flag) => !'imsU'.includes(flag));
      if (unsupported !== undefined) {
        throw new UnsupportedPattern(`has the inline modifier "${unsupported}", which RE2 does not have`);
      }
      this.#at += whole.length;
      // `(?i)` in RE2, as in PCRE, holds to the end of the group it is in (past a `|`); `(?i:…)` is a group.
      if (end === ':') this.#openGroup(whole);
      else if (on !== '' || off !== '') this.#out += whole;
      return;
    }
    if (rest.startsWith('(?P=')) {
      throw new UnsupportedPattern(
        `has the back-reference ${rest.slice(0, rest.indexOf(')') + 1)}, ${NEEDS_BACKTRACKING}`,
      );
    }
    if (/^\(\?[=!]/.test(rest)) {
      throw new UnsupportedPattern(`has the lookahead ${rest.slice(0, 3)}…), ${NEEDS_BACKTRACKING}`);
    }
    if (rest.startsWith('(?>')) throw new UnsupportedPattern(`has an atomic group (?>…), ${NEEDS_BACKTRACKING}`);
    if (rest.startsWith('(?|')) throw new UnsupportedPattern('has a branch-reset group (?|…), which RE2 does not have');
    if (rest.startsWith('(?(')) throw new UnsupportedPattern(`has a conditional group, ${NEEDS_BACKTRACKING}`);
    if (rest.startsWith('(*'))
      throw new UnsupportedPattern(`has the PCRE verb "${rest.slice(0, 8)}…", which RE2 does not have`);
    throw new UnsupportedPattern(`has the group syntax "${rest.slice(0, 6)}…", which RE2 does not have`);
  }

  #characterClass(): string {
    const p = this.#pattern;
    let out = '[';
    this.#at += 1;
    if (p[this.#at] === '^') {
      out += '^';
      this.#at += 1;
    }
    // A `]` first in a class is a literal in PCRE.
    if (p[this.#at] === ']') {
      out += '\\]';
      this.#at += 1;
    }
    while (this.#at < p.length) {
      const character = p[this.#at] ?? '';
      if (character === ']') {
        this.#at += 1;
        return `${out}]`;
      }
      if (character === '\\') {
        out += this.#classEscape();
        continue;
      }
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.#at));
      if (posix) {
        const [whole, , name = ''] = posix;
        if (!POSIX_CLASSES.has(name)) throw new UnsupportedPattern(`has the unknown POSIX class [:${name}:]`);
        out += whole;
        this.#at += whole.length;
        continue;
      }
      out += character === '[' ? '\\[' : character;
      this.#at += 1;
    }
    throw new UnsupportedPattern('has an unterminated character class "["');
  }

  /** Converts the escape sequence at the current position (a backslash) inside a character class. */
  #classEscape(): string {
    const p = this.#pattern;
    const start = this.#at;
    const next = p[start + 1];
    if (next === undefined) throw new UnsupportedPattern('ends with a lone backslash');
    switch (next) {
      case 'b':
        // In a class, PCRE's `\b` is the backspace character.
        this.#at += 2;
        return '\\x08';
      case 'h':
        this.#at += 2;
        return HORIZONTAL_SPACE;
      case 'v':
        this.#at += 2;
        return VERTICAL_SPACE;
      case 'B':
      case 'H':
      case 'V':
      case 'R':
      case 'A':
      case 'z':
      case 'Z':
        throw new UnsupportedPattern(`has \\${next} inside a character class`);
      case 'Q': {
        const end = p.indexOf('\\E', start + 2);
        const literal = p.slice(start + 2, end === -1 ? p.length : end);
        this.#at = end === -1 ? p.length : end + 2;
        return [...literal].map(quoteLiteral).join('');
      }
      case 'E':
        this.#at += 2;
        return '';
      default:
        return this.#literalOrClassEscape(true);
    }
  }

  /** Converts the escape sequence at the current position (a backslash) outside a character class. */
  #escape(): void {
    const p = this.#pattern;
    const next = p[this.#at + 1];
    if (next === undefined) throw new UnsupportedPattern('ends with a lone backslash');
    switch (next) {
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        this.#at += 2;
        this.#atom(`\\${next}`);
        return;
      case 'Z': {
        this.#at += 2;
        // "At the end, or before a newline that ends the subject": RE2 has no lookahead to say it, but at the very
        // end of the pattern (closing groups aside) matching that newline is the same.
        if (!/^[)$]*$/.test(p.slice(this.#at))) {
          throw new UnsupportedPattern('has \\Z before the end of the pattern, which RE2 cannot express (use \\z)');
        }
        this.#atom(String.raw`(?:\n?\z)`, 3);
        return;
      }
      case 'h':
        this.#at += 2;
        this.#atom(`[${HORIZONTAL_SPACE}]`);
        return;
      case 'v':
        this.#at += 2;
        this.#atom(`[${VERTICAL_SPACE}]`);
        return;
      case 'H':
      case 'V':
        this.#at += 2;
        this.#atom(`[^${next === 'H' ? HORIZONTAL_SPACE : VERTICAL_SPACE}]`);
        return;
      case 'R':
        this.#at += 2;
        this.#atom(`(?:\\r\\n|[${VERTICAL_SPACE}])`, 4);
        return;
      case 'Q': {
        // Quoted literally up to \E; each character is one instruction, so count them as such.
        const end = p.indexOf('\\E', this.#at + 2);
        const literal = p.slice(this.#at + 2, end === -1 ? p.length : end);
        this.#at = end === -1 ? p.length : end + 2;
        for (const c of literal) this.#atom(quoteLiteral(c));
        return;
      }
      case 'E':
        // A stray \E (with no \Q before it) is ignored by PCRE.
        this.#at += 2;
        return;
      default:
        this.#atom(this.#literalOrClassEscape(false));
    }
  }

  /**
   * Converts an escape that means the same in and out of a class: a character (`\x41`, `\n`, `\.`) or a class
   * (`\d`, `\pL`). Escapes for back-references and PCRE-only assertions are refused here.
   */
  #literalOrClassEscape(inClass: boolean): string {
    const p = this.#pattern;
    const next = p[this.#at + 1] ?? '';
    this.#at += 2;
    if (!/[a-zA-Z0-9]/.test(next)) {
      // PCRE: a backslash before any non-alphanumeric character makes it literal. RE2 takes the backslash before
      // ASCII punctuation only; any other character is literal as it stands.
      const whole = String.fromCodePoint(p.codePointAt(this.#at - 1) ?? 0);
      this.#at += whole.length - 1;
      return quoteLiteral(whole);
    }
    switch (next) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S':
      case 'n':
      case 'r':
      case 't':
      case 'f':
        return `\\${next}`;
      case 'a':
        return '\\x07';
      case 'e':
        return '\\x1B';
      case 'x':
        return this.#hexEscape();
      case 'o': {
        const octal = /^\{([0-7]{1,8})\}/.exec(p.slice(this.#at));
        if (!octal) throw new UnsupportedPattern('has a malformed \\o{...} escape');
        this.#at += octal[0].length;
        return codePointEscape(Number.parseInt(octal[1] ?? '0', 8));
      }
      case '0': {
        const octal = /^[0-7]{0,2}/.exec(p.slice(this.#at))?.[0] ?? '';
        this.#at += octal.length;
        return codePointEscape(Number.parseInt(`0${octal}`, 8));
      }
      case 'c': {
        const letter = p[this.#at];
        if (letter === undefined || !/[\x20-\x7E]/.test(letter)) {
          throw new UnsupportedPattern('has \\c without a printable ASCII character after it');
        }
        this.#at += 1;
        // PCRE: the character upper-cased, with bit 6 flipped (`\cA` is 0x01, `\c?` 0x7F).
        return codePointEscape((letter.toUpperCase().codePointAt(0) ?? 0) ^ 0x40);
      }
      case 'p':
      case 'P': {
        // RE2 reads `\pL`, `\p{Greek}` and `\p{^Greek}` as PCRE does; a property it does not know is its error.
        if (p[this.#at] === '{') {
          const end = p.indexOf('}', this.#at);
          if (end === -1) throw new UnsupportedPattern(`has an unterminated \\${next}{`);
          const property = p.slice(this.#at, end + 1);
          this.#at = end + 1;
          return `\\${next}${property}`;
        }
        const letter = p[this.#at];
        if (letter === undefined) throw new UnsupportedPattern(`ends with \\${next}`);
        this.#at += 1;
        return `\\${next}${letter}`;
      }
      case 'k':
      case 'g': {
        const reference = /^(?:<\w+>|'\w+'|\{[\w+-]+\}|[+-]?\d+)/.exec(p.slice(this.#at))?.[0] ?? '';
        throw new UnsupportedPattern(`has the back-reference \\${next}${reference}, ${NEEDS_BACKTRACKING}`);
      }
      case 'G':
      case 'K':
        throw new UnsupportedPattern(`has the escape \\${next}, ${NEEDS_BACKTRACKING}`);
      default:
        if (/[1-9]/.test(next)) return this.#numberedEscape(next, inClass);
        throw new UnsupportedPattern(`has the escape \\${next}, which RE2 does not have`);
    }
  }

  /**
   * `\\` and a digit from 1 to 9, as PCRE reads it: outside a class, a back-reference when the number is below 10,
   * starts with 8 or 9, or names a group already opened; otherwise (and in a class) up to three octal digits.
   */
  #numberedEscape(first: string, inClass: boolean): string {
    const p = this.#pattern;
    const digits = first + (/^\d*/.exec(p.slice(this.#at))?.[0] ?? '');
    const number = Number(digits);
    if (!inClass && (number < 10 || /^[89]/.test(digits) || number <= this.#captures)) {
      throw new UnsupportedPattern(
        `has the back-reference \\${digits}, ${NEEDS_BACKTRACKING} (write an octal character as \\0nn or \\o{…})`,
      );
    }
    const octal = /^[0-7]{1,3}/.exec(digits)?.[0];
    // In a class, \8 and \9 are the digits themselves.
    if (octal === undefined) return first;
    this.#at += octal.length - 1;
    return codePointEscape(Number.parseInt(octal, 8));
  }

  #hexEscape(): string {
    const p = this.#pattern;
    if (p[this.#at] === '{') {
      const end = p.indexOf('}', this.#at);
      const hex = end === -1 ? '' : p.slice(this.#at + 1, end);
      if (!/^[0-9a-fA-F]{1,6}$/.test(hex)) throw new UnsupportedPattern('has a malformed \\x{...} escape');
      this.#at = end + 1;
      return codePointEscape(Number.parseInt(hex, 16));
    }
    const hex = /^[0-9a-fA-F]{0,2}/.exec(p.slice(this.#at))?.[0] ?? '';
    this.#at += hex.length;
    return codePointEscape(hex === '' ? 0 : Number.parseInt(hex, 16));
  }
}

/** A character as RE2 reads it literally, in a class or out: ASCII punctuation behind a backslash. */
function quoteLiteral(character: string): string {
  return ASCII_PUNCTUATION.test(character) ? `\\${character}` : character;
}

function codePointEscape(codePoint: number): string {
  if (codePoint > 0x10ffff) throw new UnsupportedPattern(`has the escape for ${codePoint.toString(16)}, past Unicode`);
  return `\\x{${codePoint.toString(16).toUpperCase()}}`;
}
