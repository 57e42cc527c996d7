/** The outcome of {@link compilePcreRegex}: a JavaScript RegExp with the same meaning, or why there is none. */
export type PcreResult =
  | { readonly ok: true; readonly regex: RegExp }
  | { readonly ok: false; readonly reason: string };

const BRACKET_DELIMITERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

// The characters a `u`-mode RegExp lets (and needs) a backslash before; PCRE escapes any other punctuation freely.
const SYNTAX_CHARACTERS = new Set('^$\\.*+?()[]{}|/');

// PCRE's `\v` and `\h` are classes, whereas JavaScript's `\v` is the vertical-tab character.
const VERTICAL_SPACE = String.raw`\n\x0B\f\r\x85\u2028\u2029`;
const HORIZONTAL_SPACE = String.raw`\t \xA0\u1680\u180E\u2000-\u200A\u202F\u205F\u3000`;

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  ascii: String.raw`\x00-\x7F`,
  blank: String.raw`\t `,
  cntrl: String.raw`\x00-\x1F\x7F`,
  digit: '0-9',
  graph: String.raw`\x21-\x7E`,
  lower: 'a-z',
  print: String.raw`\x20-\x7E`,
  punct: String.raw`!-\/:-@\[-\x60\{-~`,
  space: String.raw`\t\n\x0B\f\r `,
  upper: 'A-Z',
  word: String.raw`\w`,
  xdigit: '0-9A-Fa-f',
};

/**
 * Converts a PCRE pattern as PHP's `preg_match` takes it (`/^evil\.(com|net)$/i`, any delimiter) into a JavaScript
 * RegExp, compiled in `u` mode so that any escape this conversion did not understand is an error rather than a
 * silently different pattern. PCRE features JavaScript lacks (possessive quantifiers, atomic groups, recursion,
 * conditionals, `\G`, `\K`, the `x` and `U` modifiers, inline flags after the start) are refused with a reason.
 *
 * @example
 * ```ts
 * compilePcreRegex('/^(?P<host>[a-z]+)\\.example$/i'); // { ok: true, regex: /^(?<host>[a-z]+)\.example$/iu }
 * compilePcreRegex('/a++/'); // { ok: false, reason: 'possessive quantifier "++" ...' }
 * ```
 */
export function compilePcreRegex(text: string): PcreResult {
  const delimited = splitDelimiters(text.trim());
  if (!delimited.ok) return delimited;
  const flags = translateModifiers(delimited.modifiers);
  if (!flags.ok) return flags;
  let body: string;
  try {
    const converted = new Converter(delimited.pattern).convert();
    body = converted.source;
    for (const flag of converted.leadingFlags) if (!flags.flags.includes(flag)) flags.flags += flag;
  } catch (error) {
    if (error instanceof UnsupportedPattern) return { ok: false, reason: error.message };
    throw error;
  }
  if (flags.anchored) body = `(?<![\\s\\S])(?:${body})`;
  try {
    return { ok: true, regex: new RegExp(body, `${flags.flags}u`) };
  } catch (error) {
    return { ok: false, reason: `JavaScript cannot compile it: ${(error as Error).message}` };
  }
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
      case 'i':
      case 'm':
      case 's':
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
        return { ok: false, reason: 'uses the "x" (extended) modifier, which JavaScript does not have' };
      case 'U':
        return { ok: false, reason: 'uses the "U" (ungreedy) modifier, which JavaScript does not have' };
      default:
        return { ok: false, reason: `has the unknown or unsupported modifier "${modifier}"` };
    }
  }
  return { ok: true, flags, anchored };
}

class UnsupportedPattern extends Error {}

/** Rewrites PCRE syntax into the equivalent `u`-mode JavaScript syntax, token by token. */
class Converter {
  readonly #pattern: string;
  #at = 0;
  #out = '';
  // Whether the last token emitted can take a quantifier suffix (`+` after it would make it possessive).
  #afterQuantifier = false;
  readonly leadingFlags: string[] = [];

  constructor(pattern: string) {
    this.#pattern = pattern;
  }

  convert(): { source: string; leadingFlags: string[] } {
    while (this.#at < this.#pattern.length) this.#token();
    return { source: this.#out, leadingFlags: this.leadingFlags };
  }

  #token(): void {
    const p = this.#pattern;
    const character = p[this.#at] ?? '';
    if (this.#afterQuantifier && character === '+') {
      throw new UnsupportedPattern(`has a possessive quantifier at offset ${this.#at}, which JavaScript does not have`);
    }
    this.#afterQuantifier = false;
    switch (character) {
      case '\\':
        this.#out += this.#escape(false);
        return;
      case '[':
        this.#out += this.#characterClass();
        return;
      case '(':
        this.#group();
        return;
      case '*':
      case '+':
      case '?':
        this.#at += 1;
        this.#out += character;
        // `a+?` is lazy (fine); `a??`/`a*?` likewise; only a following `+` is possessive.
        if (p[this.#at] === '?') {
          this.#out += '?';
          this.#at += 1;
        } else {
          this.#afterQuantifier = true;
        }
        return;
      case '{': {
        const quantifier = /^\{\d+(?:,\d*)?\}/.exec(p.slice(this.#at));
        if (quantifier) {
          this.#out += quantifier[0];
          this.#at += quantifier[0].length;
          if (p[this.#at] === '?') {
            this.#out += '?';
            this.#at += 1;
          } else {
            this.#afterQuantifier = true;
          }
        } else {
          // PCRE reads a brace that does not start a quantifier as a literal; `u` mode insists on the escape.
          this.#out += '\\{';
          this.#at += 1;
        }
        return;
      }
      case '}':
      case ']':
        this.#out += `\\${character}`;
        this.#at += 1;
        return;
      default:
        this.#out += character;
        this.#at += 1;
    }
  }

  #group(): void {
    const rest = this.#pattern.slice(this.#at);
    const plain = /^\((?!\?)|^\(\?(?:[:=!]|<[=!]|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(rest);
    if (plain) {
      this.#out += plain[0];
      this.#at += plain[0].length;
      return;
    }
    const named = /^\(\?(?:P<|')([A-Za-z_][A-Za-z0-9_]*)[>']/.exec(rest);
    if (named) {
      this.#out += `(?<${named[1]}>`;
      this.#at += named[0].length;
      return;
    }
    const backReference = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (backReference) {
      this.#out += `\\k<${backReference[1]}>`;
      this.#at += backReference[0].length;
      return;
    }
    if (rest.startsWith('(?#')) {
      const end = rest.indexOf(')');
      if (end === -1) throw new UnsupportedPattern('has an unterminated (?# comment');
      this.#at += end + 1;
      return;
    }
    if (/^\(\?(?:R|[+-]?\d+|&\w+|P>\w+)\)/.test(rest)) {
      throw new UnsupportedPattern('has recursion or a subroutine call, which JavaScript does not have');
    }
    const inline = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest);
    if (inline) {
      const [whole, on = '', off = '', end] = inline;
      const unsupported = [...on, ...off].find((flag) => !'ims'.includes(flag));
      if (unsupported !== undefined) {
        throw new UnsupportedPattern(`has the inline modifier "${unsupported}", which JavaScript does not have`);
      }
      if (end === ':') {
        // Scoped modifiers (`(?i:...)`) exist in JavaScript since ES2025.
        this.#out += whole;
        this.#at += whole.length;
        return;
      }
      if (this.#at === 0 && off === '') {
        this.leadingFlags.push(...on);
        this.#at += whole.length;
        return;
      }
      throw new UnsupportedPattern(
        `has the inline modifier "${whole}" after the start of the pattern; JavaScript only has scoped ones like (?i:...)`,
      );
    }
    if (rest.startsWith('(?>'))
      throw new UnsupportedPattern('has an atomic group (?>...), which JavaScript does not have');
    if (rest.startsWith('(?|'))
      throw new UnsupportedPattern('has a branch-reset group (?|...), which JavaScript does not have');
    if (rest.startsWith('(?(')) throw new UnsupportedPattern('has a conditional group, which JavaScript does not have');
    throw new UnsupportedPattern(`has the group syntax "${rest.slice(0, 6)}…", which JavaScript does not have`);
  }

  #characterClass(): string {
    const p = this.#pattern;
    let out = '[';
    this.#at += 1;
    if (p[this.#at] === '^') {
      out += '^';
      this.#at += 1;
    }
    // A `]` first in a class is a literal in PCRE, and an empty class in JavaScript.
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
        out += this.#escape(true);
        continue;
      }
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.#at));
      if (posix) {
        const [whole, negated, name = ''] = posix;
        const members = POSIX_CLASSES[name];
        if (members === undefined) throw new UnsupportedPattern(`has the unknown POSIX class [:${name}:]`);
        if (negated) throw new UnsupportedPattern(`has the negated POSIX class [:^${name}:], which JavaScript lacks`);
        out += members;
        this.#at += whole.length;
        continue;
      }
      // `u` mode refuses a lone `[` inside a class only in `v` mode, but escaping it is harmless and clearer.
      out += character === '[' ? '\\[' : character;
      this.#at += 1;
    }
    throw new UnsupportedPattern('has an unterminated character class "["');
  }

  /** Converts the escape sequence at the current position (which is a backslash). */
  #escape(inClass: boolean): string {
    const p = this.#pattern;
    const start = this.#at;
    const next = p[start + 1];
    if (next === undefined) throw new UnsupportedPattern('ends with a lone backslash');
    this.#at = start + 2;
    if (!/[a-zA-Z0-9]/.test(next)) {
      // PCRE: a backslash before any non-alphanumeric character makes it literal.
      if (SYNTAX_CHARACTERS.has(next) || (inClass && next === '-')) return `\\${next}`;
      return next;
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
      case 'b':
      case 'B':
        if (inClass && next === 'B') throw new UnsupportedPattern('has \\B inside a character class');
        return `\\${next}`;
      case 'e':
        return '\\x1B';
      case 'a':
        return '\\x07';
      case 'h':
        return inClass ? HORIZONTAL_SPACE : `[${HORIZONTAL_SPACE}]`;
      case 'v':
        return inClass ? VERTICAL_SPACE : `[${VERTICAL_SPACE}]`;
      case 'H':
      case 'V':
        if (inClass) throw new UnsupportedPattern(`has \\${next} inside a character class`);
        return `[^${next === 'H' ? HORIZONTAL_SPACE : VERTICAL_SPACE}]`;
      case 'R':
        if (inClass) throw new UnsupportedPattern('has \\R inside a character class');
        return `(?:\\r\\n|[${VERTICAL_SPACE}])`;
      case 'A':
        return this.#assertion(inClass, next, '(?<![\\s\\S])');
      case 'z':
        return this.#assertion(inClass, next, '(?![\\s\\S])');
      case 'Z':
        return this.#assertion(inClass, next, '(?=\\n?(?![\\s\\S]))');
      case 'x':
        return this.#hexEscape();
      case 'c': {
        const letter = p[this.#at];
        if (letter === undefined || !/[a-zA-Z]/.test(letter)) {
          throw new UnsupportedPattern('has \\c without a letter after it');
        }
        this.#at += 1;
        return `\\c${letter}`;
      }
      case 'p':
      case 'P': {
        if (p[this.#at] === '{') {
          const end = p.indexOf('}', this.#at);
          if (end === -1) throw new UnsupportedPattern(`has an unterminated \\${next}{`);
          const name = p.slice(this.#at + 1, end).replace(/^\^/, '');
          const negate = p[this.#at + 1] === '^';
          this.#at = end + 1;
          return `\\${negate === (next === 'p') ? 'P' : 'p'}{${name}}`;
        }
        const letter = p[this.#at];
        if (letter === undefined) throw new UnsupportedPattern(`ends with \\${next}`);
        this.#at += 1;
        return `\\${next}{${letter}}`;
      }
      case 'k': {
        const reference = /^(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)'|\{([A-Za-z_]\w*)\})/.exec(p.slice(this.#at));
        if (!reference) throw new UnsupportedPattern('has a \\k back-reference without a group name');
        this.#at += reference[0].length;
        return `\\k<${reference[1] ?? reference[2] ?? reference[3]}>`;
      }
      case 'Q': {
        const end = p.indexOf('\\E', this.#at);
        const literal = p.slice(this.#at, end === -1 ? p.length : end);
        this.#at = end === -1 ? p.length : end + 2;
        return [...literal].map((c) => (SYNTAX_CHARACTERS.has(c) || (inClass && c === '-') ? `\\${c}` : c)).join('');
      }
      case 'E':
        // A stray \E (with no \Q before it) is ignored by PCRE.
        return '';
      case '0': {
        const octal = /^[0-7]{0,2}/.exec(p.slice(this.#at))?.[0] ?? '';
        this.#at += octal.length;
        return `\\u{${Number.parseInt(`0${octal}`, 8).toString(16)}}`;
      }
      default:
        if (/[1-9]/.test(next)) {
          if (inClass) throw new UnsupportedPattern(`has the octal or back-reference escape \\${next} in a class`);
          const digits = /^\d*/.exec(p.slice(this.#at))?.[0] ?? '';
          this.#at += digits.length;
          return `\\${next}${digits}`;
        }
        throw new UnsupportedPattern(`has the escape \\${next}, which JavaScript does not have`);
    }
  }

  #assertion(inClass: boolean, letter: string, replacement: string): string {
    if (inClass) throw new UnsupportedPattern(`has \\${letter} inside a character class`);
    return replacement;
  }

  #hexEscape(): string {
    const p = this.#pattern;
    if (p[this.#at] === '{') {
      const end = p.indexOf('}', this.#at);
      const hex = end === -1 ? '' : p.slice(this.#at + 1, end);
      if (!/^[0-9a-fA-F]{1,6}$/.test(hex)) throw new UnsupportedPattern('has a malformed \\x{...} escape');
      this.#at = end + 1;
      return `\\u{${hex}}`;
    }
    const hex = /^[0-9a-fA-F]{0,2}/.exec(p.slice(this.#at))?.[0] ?? '';
    this.#at += hex.length;
    return `\\u{${hex === '' ? '0' : hex}}`;
  }
}
