// The PCRE-to-RE2 rewriter: groups, quantifiers, character classes and assertions, token by token, with the size
// estimate that refuses a huge pattern before it is compiled.
import {
  HORIZONTAL_SPACE,
  NEEDS_BACKTRACKING,
  PcreEscapeReader,
  quoteLiteral,
  UnsupportedPattern,
  VERTICAL_SPACE,
} from './pcre-escapes.js';

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
export class Converter extends PcreEscapeReader {
  #out = '';
  // Whether the last token emitted was a quantifier (`+` after it would make it possessive).
  #afterQuantifier = false;
  readonly #frames: SizeFrame[] = [{ done: 0, branch: 0, last: 0 }];
  convert(): { source: string; estimate: number } {
    while (this.at < this.pattern.length) this.#token();
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
    const p = this.pattern;
    const character = p[this.at] ?? '';
    if (this.#afterQuantifier && character === '+') {
      throw new UnsupportedPattern(`has a possessive quantifier at offset ${this.at}, ${NEEDS_BACKTRACKING}`);
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
        this.at += 1;
        return;
      }
      case '*':
      case '+':
      case '?':
        this.at += 1;
        this.#quantifier(character, 1);
        return;
      case '{': {
        const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.at));
        if (quantifier) {
          const [whole, least = '0', comma, most = ''] = quantifier;
          this.at += whole.length;
          // `{n}` makes n copies, `{n,m}` m, `{n,}` n and a star.
          const copies = comma === undefined ? Number(least) : most === '' ? Number(least) + 1 : Number(most);
          this.#quantifier(whole, this.#frame.last * Math.max(copies - 1, 0) + 1);
        } else {
          // PCRE reads a brace that does not start a quantifier as a literal.
          this.#atom('\\{');
          this.at += 1;
        }
        return;
      }
      case '}':
      case ']':
        this.#atom(`\\${character}`);
        this.at += 1;
        return;
      case '^':
      case '$':
      case '.':
        this.#atom(character);
        this.at += 1;
        return;
      default: {
        // One code point, so that a quantifier after an astral character repeats all of it.
        const codePoint = String.fromCodePoint(p.codePointAt(this.at) ?? 0);
        this.#atom(codePoint);
        this.at += codePoint.length;
      }
    }
  }

  /** Emits a quantifier (already consumed) that adds about `size` instructions, and a lazy `?` after it. */
  #quantifier(text: string, size: number): void {
    this.#out += text;
    this.#frame.branch += size;
    if (this.pattern[this.at] === '?') {
      this.#out += '?';
      this.at += 1;
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
    this.at += 1;
    // An unbalanced `)` is left for RE2 to refuse.
    if (this.#frames.length === 1) return;
    const frame = this.#frames.pop() as SizeFrame;
    const size = frame.done + frame.branch + 2;
    this.#frame.branch += size;
    this.#frame.last = size;
  }

  #group(): void {
    const rest = this.pattern.slice(this.at);
    // A capturing group, a non-capturing one, a lookbehind (re2js matches those without captures in linear time).
    const plain = /^\((?![?*])|^\(\?(?::|<[=!])/.exec(rest);
    if (plain) {
      if (plain[0] === '(') this.captures += 1;
      this.#openGroup(plain[0]);
      this.at += plain[0].length;
      return;
    }
    const named = /^\(\?(?:P?<|')([A-Za-z_][A-Za-z0-9_]*)[>']/.exec(rest);
    if (named) {
      this.captures += 1;
      this.#openGroup(`(?P<${named[1]}>`);
      this.at += named[0].length;
      return;
    }
    if (rest.startsWith('(?#')) {
      const end = rest.indexOf(')');
      if (end === -1) throw new UnsupportedPattern('has an unterminated (?# comment');
      this.at += end + 1;
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
      this.at += whole.length;
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
    const p = this.pattern;
    let out = '[';
    this.at += 1;
    if (p[this.at] === '^') {
      out += '^';
      this.at += 1;
    }
    // A `]` first in a class is a literal in PCRE.
    if (p[this.at] === ']') {
      out += '\\]';
      this.at += 1;
    }
    while (this.at < p.length) {
      const character = p[this.at] ?? '';
      if (character === ']') {
        this.at += 1;
        return `${out}]`;
      }
      if (character === '\\') {
        out += this.classEscape();
        continue;
      }
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.at));
      if (posix) {
        const [whole, , name = ''] = posix;
        if (!POSIX_CLASSES.has(name)) throw new UnsupportedPattern(`has the unknown POSIX class [:${name}:]`);
        out += whole;
        this.at += whole.length;
        continue;
      }
      out += character === '[' ? '\\[' : character;
      this.at += 1;
    }
    throw new UnsupportedPattern('has an unterminated character class "["');
  }

  /** Converts the escape sequence at the current position (a backslash) outside a character class. */
  #escape(): void {
    const p = this.pattern;
    const next = p[this.at + 1];
    if (next === undefined) throw new UnsupportedPattern('ends with a lone backslash');
    switch (next) {
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        this.at += 2;
        this.#atom(`\\${next}`);
        return;
      case 'Z': {
        this.at += 2;
        // "At the end, or before a newline that ends the subject": RE2 has no lookahead to say it, but at the very
        // end of the pattern (closing groups aside) matching that newline is the same.
        if (!/^[)$]*$/.test(p.slice(this.at))) {
          throw new UnsupportedPattern('has \\Z before the end of the pattern, which RE2 cannot express (use \\z)');
        }
        this.#atom(String.raw`(?:\n?\z)`, 3);
        return;
      }
      case 'h':
        this.at += 2;
        this.#atom(`[${HORIZONTAL_SPACE}]`);
        return;
      case 'v':
        this.at += 2;
        this.#atom(`[${VERTICAL_SPACE}]`);
        return;
      case 'H':
      case 'V':
        this.at += 2;
        this.#atom(`[^${next === 'H' ? HORIZONTAL_SPACE : VERTICAL_SPACE}]`);
        return;
      case 'R':
        this.at += 2;
        this.#atom(`(?:\\r\\n|[${VERTICAL_SPACE}])`, 4);
        return;
      case 'Q': {
        // Quoted literally up to \E; each character is one instruction, so count them as such.
        const end = p.indexOf('\\E', this.at + 2);
        const literal = p.slice(this.at + 2, end === -1 ? p.length : end);
        this.at = end === -1 ? p.length : end + 2;
        for (const c of literal) this.#atom(quoteLiteral(c));
        return;
      }
      case 'E':
        // A stray \E (with no \Q before it) is ignored by PCRE.
        this.at += 2;
        return;
      default:
        this.#atom(this.literalOrClassEscape(false));
    }
  }
}
