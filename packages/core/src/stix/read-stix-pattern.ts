// Reads the part of the STIX 2.1 patterning language (STIX 2.1 part 9; the OASIS grammar STIXPattern.g4) that a list
// of indicators can hold: `[object:path = 'literal']`, several of them joined by OR inside one observation or between
// observations, with parentheses. Everything else the grammar allows (AND, FOLLOWEDBY, qualifiers, other operators)
// is parsed too, so that it is reported with what it is rather than as a syntax error, and so that the usable
// comparisons of a pattern are still found beside it.

/** One `object:path = 'literal'` comparison of a pattern. */
interface StixComparison {
  /** The cyber-observable object type (`domain-name`). */
  readonly objectType: string;
  /** The property path, each component unquoted (`['hashes', 'SHA-256']`); list indexes as `[0]` or `[*]`. */
  readonly path: readonly string[];
  /** The string literal, unescaped. */
  readonly value: string;
}

/** A part of a pattern: a comparison that can be read as an indicator, or why a part cannot be. */
type StixPatternPart =
  | { readonly ok: true; readonly comparison: StixComparison }
  | { readonly ok: false; readonly reason: string };

/** The outcome of {@link readStixPattern}: the pattern's parts, or why it is not a valid pattern at all. */
export type StixPatternReading =
  | { readonly ok: true; readonly parts: readonly StixPatternPart[] }
  | { readonly ok: false; readonly reason: string };

/**
 * The alternatives of a STIX pattern: every comparison joined to the others by OR, and for each part that is not a
 * plain equality with a string (a comparison joined with AND, an observation with a qualifier, `!=`, `MATCHES`, …)
 * the reason it cannot stand for one indicator.
 *
 * @example
 * ```ts
 * readStixPattern("[url:value = 'http://a/' OR domain-name:value = 'b.example'] OR [file:name MATCHES 'x']");
 * // { ok: true, parts: [ {ok: true, comparison: {objectType: 'url', path: ['value'], value: 'http://a/'}},
 * //   {ok: true, …domain-name…}, {ok: false, reason: 'uses the operator MATCHES …'} ] }
 * ```
 */
export function readStixPattern(pattern: string): StixPatternReading {
  try {
    const parser = new Parser(pattern, tokenize(pattern));
    return { ok: true, parts: parser.pattern() };
  } catch (error) {
    if (error instanceof PatternSyntaxError) {
      return { ok: false, reason: `is not a valid STIX pattern: ${error.message} (at character ${error.offset + 1})` };
    }
    throw error;
  }
}

class PatternSyntaxError extends Error {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

type TokenKind = 'punct' | 'op' | 'string' | 'word' | 'number' | 'typed' | 'eof';

interface Token {
  readonly kind: TokenKind;
  /** The token as written (for a string, its unescaped value). */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

// The grammar's WS rule.
const WHITESPACE = new Set([' ', '\t', '\r', '\n', '\v', '\f', '\u0085', '\u00a0', '\u2028', '\u2029']);
const WORD = /[A-Za-z_][A-Za-z0-9_-]*/y;
const NUMBER = /[+-]?(?:\d+(?:\.\d+)?|\.\d+)/y;
const OPERATORS = ['==', '!=', '<>', '<=', '>=', '=', '<', '>'];
const PUNCTUATION = '[]():.,*';

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    if (WHITESPACE.has(c)) {
      i += 1;
      continue;
    }
    if (source.startsWith('/*', i)) {
      const close = source.indexOf('*/', i + 2);
      if (close === -1) throw new PatternSyntaxError('a comment is not closed', i);
      i = close + 2;
      continue;
    }
    if (source.startsWith('//', i)) {
      const newline = source.slice(i).search(/[\r\n]/);
      i = newline === -1 ? source.length : i + newline;
      continue;
    }
    if (c === "'") {
      const [value, end] = readString(source, i);
      tokens.push({ kind: 'string', text: value, start: i, end });
      i = end;
      continue;
    }
    const operator = OPERATORS.find((op) => source.startsWith(op, i));
    if (operator !== undefined) {
      tokens.push({ kind: 'op', text: operator, start: i, end: i + operator.length });
      i += operator.length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = /[\d+.-]/.test(c) ? NUMBER.exec(source) : null;
    if (number) {
      tokens.push({ kind: 'number', text: number[0], start: i, end: i + number[0].length });
      i += number[0].length;
      continue;
    }
    if (PUNCTUATION.includes(c)) {
      tokens.push({ kind: 'punct', text: c, start: i, end: i + 1 });
      i += 1;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(source);
    if (word) {
      const end = i + word[0].length;
      // t'…', b'…' and h'…' are timestamp, binary and hex literals.
      if (/^[tbh]$/.test(word[0]) && source[end] === "'") {
        const [value, stringEnd] = readString(source, end);
        tokens.push({ kind: 'typed', text: `${word[0]}'${value}'`, start: i, end: stringEnd });
        i = stringEnd;
        continue;
      }
      tokens.push({ kind: 'word', text: word[0], start: i, end });
      i = end;
      continue;
    }
    throw new PatternSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
  }
  tokens.push({ kind: 'eof', text: 'the end of the pattern', start: source.length, end: source.length });
  return tokens;
}

/** A string literal starting at `start` (a `'`): its value and the offset after its closing quote. */
function readString(source: string, start: number): [string, number] {
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const c = source[i];
    if (c === "'") return [value, i + 1];
    if (c === '\\') {
      const next = source[i + 1];
      if (next !== "'" && next !== '\\') {
        throw new PatternSyntaxError(
          `a string literal has "\\${next ?? ''}"; only \\' and \\\\ are escapes in STIX patterns`,
          i,
        );
      }
      value += next;
      i += 2;
      continue;
    }
    value += c;
    i += 1;
  }
  throw new PatternSyntaxError('a string literal is not closed', start);
}

const QUALIFIERS = new Set(['WITHIN', 'REPEATS', 'START']);
const WORD_OPERATORS = new Set(['IN', 'LIKE', 'MATCHES', 'ISSUBSET', 'ISSUPERSET']);
const IDENTIFIER_WITHOUT_HYPHEN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SNIPPET_LENGTH = 80;
/**
 * The deepest nesting of parentheses and brackets a pattern may have. The parser descends once per level, so without
 * a bound a pattern of a few thousand `(` (from a file, a TAXII server or a POST) would overflow the stack; no
 * pattern a producer writes comes near it.
 */
const MAX_NESTING = 100;

class Parser {
  #at = 0;
  #depth = 0;

  readonly source: string;
  readonly tokens: readonly Token[];

  constructor(source: string, tokens: readonly Token[]) {
    this.source = source;
    this.tokens = tokens;
  }

  pattern(): StixPatternPart[] {
    const parts = this.#observationOr();
    this.#expect('eof', undefined, 'the end of the pattern');
    return parts;
  }

  #observationOr(): StixPatternPart[] {
    const parts = [...this.#observationJoined('AND')];
    while (this.#isWord('OR')) {
      this.#next();
      parts.push(...this.#observationJoined('AND'));
    }
    return parts;
  }

  // AND binds tighter than OR, FOLLOWEDBY tighter than AND (STIXPattern.g4 observationExpressions).
  #observationJoined(keyword: 'AND' | 'FOLLOWEDBY'): StixPatternPart[] {
    const start = this.#peek().start;
    const inner = (): StixPatternPart[] =>
      keyword === 'AND' ? this.#observationJoined('FOLLOWEDBY') : this.#observationQualified();
    const first = inner();
    if (!this.#isWord(keyword)) return first;
    while (this.#isWord(keyword)) {
      this.#next();
      inner();
    }
    const what = keyword === 'AND' ? 'AND (all must be seen)' : 'FOLLOWEDBY (a sequence)';
    return [this.#problem(`joins observations with ${what}, which no single indicator expresses`, start)];
  }

  #observationQualified(): StixPatternPart[] {
    const start = this.#peek().start;
    const parts = this.#observationPrimary();
    const qualifiers: string[] = [];
    while (this.#peek().kind === 'word' && QUALIFIERS.has(this.#peek().text)) qualifiers.push(this.#qualifier());
    if (qualifiers.length === 0) return parts;
    return [
      this.#problem(`has the qualifier ${qualifiers.join(' and ')}, which a list of indicators cannot keep`, start),
    ];
  }

  #qualifier(): string {
    const keyword = this.#next().text;
    if (keyword === 'WITHIN') {
      this.#expect('number', undefined, 'a number of seconds');
      this.#expectWord('SECONDS');
    } else if (keyword === 'REPEATS') {
      this.#expect('number', undefined, 'a number of times');
      this.#expectWord('TIMES');
    } else {
      this.#expect('typed', undefined, "a timestamp t'…'");
      this.#expectWord('STOP');
      this.#expect('typed', undefined, "a timestamp t'…'");
      return 'START/STOP';
    }
    return keyword;
  }

  #observationPrimary(): StixPatternPart[] {
    const token = this.#peek();
    if (token.kind === 'punct' && token.text === '[') {
      this.#enter();
      const parts = this.#comparisonOr();
      this.#expect('punct', ']', '"]" or OR');
      this.#depth -= 1;
      return parts;
    }
    if (token.kind === 'punct' && token.text === '(') {
      this.#enter();
      const parts = this.#observationOr();
      this.#expect('punct', ')', '")"');
      this.#depth -= 1;
      return parts;
    }
    throw new PatternSyntaxError(`expected "[" or "(", found ${describe(token)}`, token.start);
  }

  #comparisonOr(): StixPatternPart[] {
    const parts = [...this.#comparisonAnd()];
    while (this.#isWord('OR')) {
      this.#next();
      parts.push(...this.#comparisonAnd());
    }
    return parts;
  }

  #comparisonAnd(): StixPatternPart[] {
    const start = this.#peek().start;
    const first = this.#comparisonPrimary();
    if (!this.#isWord('AND')) return first;
    while (this.#isWord('AND')) {
      this.#next();
      this.#comparisonPrimary();
    }
    return [this.#problem('joins comparisons with AND (all must hold), which no single indicator expresses', start)];
  }

  #comparisonPrimary(): StixPatternPart[] {
    const start = this.#peek().start;
    if (this.#isPunct('(')) {
      this.#enter();
      const parts = this.#comparisonOr();
      this.#expect('punct', ')', '")"');
      this.#depth -= 1;
      return parts;
    }
    if (this.#isWord('EXISTS')) {
      this.#next();
      this.#objectPath();
      return [this.#problem('tests EXISTS, which names no value', start)];
    }
    const { objectType, path } = this.#objectPath();
    const negated = this.#isWord('NOT');
    if (negated) this.#next();
    const operatorToken = this.#peek();
    const isOperator =
      operatorToken.kind === 'op' || (operatorToken.kind === 'word' && WORD_OPERATORS.has(operatorToken.text));
    if (!isOperator) {
      throw new PatternSyntaxError(
        `expected a comparison operator, found ${describe(operatorToken)}`,
        operatorToken.start,
      );
    }
    this.#next();
    const literal = this.#literal();
    const operator = operatorToken.text;
    if (negated || (operator !== '=' && operator !== '==')) {
      const written = negated ? `NOT ${operator}` : operator;
      return [this.#problem(`uses the operator ${written}; only = with a string names one indicator`, start)];
    }
    if (literal.kind !== 'string') {
      return [this.#problem('compares with something other than a string literal', start)];
    }
    return [{ ok: true, comparison: { objectType, path, value: literal.text } }];
  }

  #objectPath(): { objectType: string; path: string[] } {
    const type = this.#expect('word', undefined, 'an object type');
    this.#expect('punct', ':', '":"');
    const path = [this.#pathComponent()];
    for (;;) {
      if (this.#isPunct('.')) {
        this.#next();
        path.push(this.#pathComponent());
      } else if (this.#isPunct('[')) {
        this.#next();
        const index = this.#peek();
        if (!(index.kind === 'number' || (index.kind === 'punct' && index.text === '*'))) {
          throw new PatternSyntaxError(`expected a list index or "*", found ${describe(index)}`, index.start);
        }
        this.#next();
        this.#expect('punct', ']', '"]"');
        path.push(`[${index.text}]`);
      } else {
        return { objectType: type.text, path };
      }
    }
  }

  #pathComponent(): string {
    const token = this.#next();
    if (token.kind === 'string') return token.text;
    if (token.kind === 'word' && IDENTIFIER_WITHOUT_HYPHEN.test(token.text)) return token.text;
    if (token.kind === 'word') {
      throw new PatternSyntaxError(
        `the property name ${token.text} has a hyphen, so it must be quoted ('${token.text}')`,
        token.start,
      );
    }
    throw new PatternSyntaxError(`expected a property name, found ${describe(token)}`, token.start);
  }

  #literal(): Token {
    const token = this.#next();
    if (token.kind === 'string' || token.kind === 'number' || token.kind === 'typed') return token;
    if (token.kind === 'word' && (token.text === 'true' || token.text === 'false')) return token;
    if (token.kind === 'punct' && token.text === '(') {
      // A set, for IN: ('a', 'b'). The `(` is already read: #enter counts it without reading another token.
      this.#enter(false);
      this.#literal();
      while (this.#isPunct(',')) {
        this.#next();
        this.#literal();
      }
      this.#expect('punct', ')', '")"');
      this.#depth -= 1;
      return token;
    }
    throw new PatternSyntaxError(`expected a literal, found ${describe(token)}`, token.start);
  }

  #problem(what: string, start: number): StixPatternPart {
    const end = this.tokens[this.#at - 1]?.end ?? this.source.length;
    const text = this.source.slice(start, end);
    const snippet = text.length > SNIPPET_LENGTH ? `${text.slice(0, SNIPPET_LENGTH)}…` : text;
    return { ok: false, reason: `${snippet} ${what}` };
  }

  /** Reads an opening `(` or `[` (unless `read` is false), refusing one nested deeper than {@link MAX_NESTING}. */
  #enter(read = true): void {
    const token = read ? this.#next() : (this.tokens[this.#at - 1] as Token);
    this.#depth += 1;
    if (this.#depth > MAX_NESTING) {
      throw new PatternSyntaxError(
        `parentheses and brackets are nested deeper than ${MAX_NESTING} levels`,
        token.start,
      );
    }
  }

  #peek(): Token {
    // The last token is always eof, and nothing reads past it.
    return this.tokens[Math.min(this.#at, this.tokens.length - 1)] as Token;
  }

  #next(): Token {
    const token = this.#peek();
    if (token.kind !== 'eof') this.#at += 1;
    return token;
  }

  #isWord(text: string): boolean {
    const token = this.#peek();
    return token.kind === 'word' && token.text === text;
  }

  #isPunct(text: string): boolean {
    const token = this.#peek();
    return token.kind === 'punct' && token.text === text;
  }

  #expect(kind: TokenKind, text: string | undefined, what: string): Token {
    const token = this.#peek();
    if (token.kind !== kind || (text !== undefined && token.text !== text)) {
      throw new PatternSyntaxError(`expected ${what}, found ${describe(token)}`, token.start);
    }
    return this.#next();
  }

  #expectWord(text: string): Token {
    return this.#expect('word', text, text);
  }
}

function describe(token: Token): string {
  if (token.kind === 'eof') return token.text;
  if (token.kind === 'string') return 'a string literal';
  return JSON.stringify(token.text);
}
