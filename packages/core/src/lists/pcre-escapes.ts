// PCRE's escape sequences (`\x41`, `\d`, `\pL`, `\Q…\E`, octal and back-reference numbers) read into their RE2
// equivalents, and the refusal of what RE2 cannot run in linear time.
// The ASCII punctuation RE2 lets a backslash make literal; PCRE escapes any non-alphanumeric character freely.
const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;

// PCRE's `\v` and `\h` are classes, whereas RE2's `\v` is the vertical-tab character.
export const VERTICAL_SPACE = String.raw`\n\x0B\f\r\x{85}\x{2028}\x{2029}`;
export const HORIZONTAL_SPACE = String.raw`\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`;

export const NEEDS_BACKTRACKING =
  'which needs a backtracking engine: list patterns run on RE2, whose lookups take time linear in the value, so ' +
  'that no entry can stall one';

/** A PCRE construct with no linear-time RE2 equivalent: its message says what it is and why. */
export class UnsupportedPattern extends Error {}

/**
 * Reads a PCRE pattern from a position (`at`): the escape sequences, which mean the same in a character class and out
 * of one, into RE2 syntax. {@link Converter} reads the rest.
 */
export abstract class PcreEscapeReader {
  protected readonly pattern: string;
  protected at = 0;
  // Capturing groups opened so far, which decides whether `\12` is a back-reference or an octal escape.
  protected captures = 0;

  constructor(pattern: string) {
    this.pattern = pattern;
  }

  /** Converts the escape sequence at the current position (a backslash) inside a character class. */
  protected classEscape(): string {
    const p = this.pattern;
    const start = this.at;
    const next = p[start + 1];
    if (next === undefined) throw new UnsupportedPattern('ends with a lone backslash');
    switch (next) {
      case 'b':
        // In a class, PCRE's `\b` is the backspace character.
        this.at += 2;
        return '\\x08';
      case 'h':
        this.at += 2;
        return HORIZONTAL_SPACE;
      case 'v':
        this.at += 2;
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
        this.at = end === -1 ? p.length : end + 2;
        return [...literal].map(quoteLiteral).join('');
      }
      case 'E':
        this.at += 2;
        return '';
      default:
        return this.literalOrClassEscape(true);
    }
  }

  /**
   * Converts an escape that means the same in and out of a class: a character (`\x41`, `\n`, `\.`) or a class
   * (`\d`, `\pL`). Escapes for back-references and PCRE-only assertions are refused here.
   */
  protected literalOrClassEscape(inClass: boolean): string {
    const p = this.pattern;
    const next = p[this.at + 1] ?? '';
    this.at += 2;
    if (!/[a-zA-Z0-9]/.test(next)) {
      // PCRE: a backslash before any non-alphanumeric character makes it literal. RE2 takes the backslash before
      // ASCII punctuation only; any other character is literal as it stands.
      const whole = String.fromCodePoint(p.codePointAt(this.at - 1) ?? 0);
      this.at += whole.length - 1;
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
        const octal = /^\{([0-7]{1,8})\}/.exec(p.slice(this.at));
        if (!octal) throw new UnsupportedPattern('has a malformed \\o{...} escape');
        this.at += octal[0].length;
        return codePointEscape(Number.parseInt(octal[1] ?? '0', 8));
      }
      case '0': {
        const octal = /^[0-7]{0,2}/.exec(p.slice(this.at))?.[0] ?? '';
        this.at += octal.length;
        return codePointEscape(Number.parseInt(`0${octal}`, 8));
      }
      case 'c': {
        const letter = p[this.at];
        if (letter === undefined || !/[\x20-\x7E]/.test(letter)) {
          throw new UnsupportedPattern('has \\c without a printable ASCII character after it');
        }
        this.at += 1;
        // PCRE: the character upper-cased, with bit 6 flipped (`\cA` is 0x01, `\c?` 0x7F).
        return codePointEscape((letter.toUpperCase().codePointAt(0) ?? 0) ^ 0x40);
      }
      case 'p':
      case 'P': {
        // RE2 reads `\pL`, `\p{Greek}` and `\p{^Greek}` as PCRE does; a property it does not know is its error.
        if (p[this.at] === '{') {
          const end = p.indexOf('}', this.at);
          if (end === -1) throw new UnsupportedPattern(`has an unterminated \\${next}{`);
          const property = p.slice(this.at, end + 1);
          this.at = end + 1;
          return `\\${next}${property}`;
        }
        const letter = p[this.at];
        if (letter === undefined) throw new UnsupportedPattern(`ends with \\${next}`);
        this.at += 1;
        return `\\${next}${letter}`;
      }
      case 'k':
      case 'g': {
        const reference = /^(?:<\w+>|'\w+'|\{[\w+-]+\}|[+-]?\d+)/.exec(p.slice(this.at))?.[0] ?? '';
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
    const p = this.pattern;
    const digits = first + (/^\d*/.exec(p.slice(this.at))?.[0] ?? '');
    const number = Number(digits);
    if (!inClass && (number < 10 || /^[89]/.test(digits) || number <= this.captures)) {
      throw new UnsupportedPattern(
        `has the back-reference \\${digits}, ${NEEDS_BACKTRACKING} (write an octal character as \\0nn or \\o{…})`,
      );
    }
    const octal = /^[0-7]{1,3}/.exec(digits)?.[0];
    // In a class, \8 and \9 are the digits themselves.
    if (octal === undefined) return first;
    this.at += octal.length - 1;
    return codePointEscape(Number.parseInt(octal, 8));
  }

  #hexEscape(): string {
    const p = this.pattern;
    if (p[this.at] === '{') {
      const end = p.indexOf('}', this.at);
      const hex = end === -1 ? '' : p.slice(this.at + 1, end);
      if (!/^[0-9a-fA-F]{1,6}$/.test(hex)) throw new UnsupportedPattern('has a malformed \\x{...} escape');
      this.at = end + 1;
      return codePointEscape(Number.parseInt(hex, 16));
    }
    const hex = /^[0-9a-fA-F]{0,2}/.exec(p.slice(this.at))?.[0] ?? '';
    this.at += hex.length;
    return codePointEscape(hex === '' ? 0 : Number.parseInt(hex, 16));
  }
}

/** A character as RE2 reads it literally, in a class or out: ASCII punctuation behind a backslash. */
export function quoteLiteral(character: string): string {
  return ASCII_PUNCTUATION.test(character) ? `\\${character}` : character;
}

/** A code point as an RE2 `\x{…}` escape. */
function codePointEscape(codePoint: number): string {
  if (codePoint > 0x10ffff) throw new UnsupportedPattern(`has the escape for ${codePoint.toString(16)}, past Unicode`);
  return `\\x{${codePoint.toString(16).toUpperCase()}}`;
}
