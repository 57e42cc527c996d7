// A checker of STIX 2.1 patterns, as strict as the grammar, for the emulated upload API to refuse what Sentinel's
// parser refuses. Source: STIX 2.1, section 9 "STIX Patterning" (9.2 grammar, 9.3 constants with their quoting and
// escaping rules, 9.5 comparison operators, 9.6 observation operators, 9.7 qualifiers) and the ANTLR grammar it
// references (STIXPattern.g4 in oasis-open/cti-pattern-validator):
// https://docs.oasis-open.org/cti/stix/v2.1/os/stix-v2.1-os.html#_e8slinrhxcc9

/** Why a pattern is not a STIX pattern: the first problem, with where it is. */
export class StixPatternError extends Error {
  constructor(message: string, at: number) {
    super(`${message} at character ${at + 1}`);
    this.name = 'StixPatternError';
  }
}

type TokenKind = 'punct' | 'word' | 'string' | 'number' | 'typed' | 'path';

interface Token {
  kind: TokenKind;
  text: string;
  at: number;
}

const KEYWORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'FOLLOWEDBY',
  'LIKE',
  'MATCHES',
  'ISSUPERSET',
  'ISSUBSET',
  'IN',
  'EXISTS',
  'START',
  'STOP',
  'WITHIN',
  'SECONDS',
  'REPEATS',
  'TIMES',
  'true',
  'false',
]);

const TIMESTAMP = /^\d{4}-(0[1-9]|1[012])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?Z$/;
const OBJECT_TYPE = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PROPERTY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Throws {@link StixPatternError} unless `pattern` is a STIX 2.1 pattern. */
export function checkStixPattern(pattern: string): void {
  const parser = new Parser(tokenize(pattern), pattern.length);
  parser.pattern();
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    // Typed constants: t'...' (timestamp), h'...' (hex), b'...' (base64).
    if ((c === 't' || c === 'h' || c === 'b') && text[i + 1] === "'") {
      const end = text.indexOf("'", i + 2);
      if (end < 0) throw new StixPatternError('unterminated constant', at);
      const body = text.slice(i + 2, end);
      if (c === 't' && !TIMESTAMP.test(body)) throw new StixPatternError(`invalid timestamp t'${body}'`, at);
      if (c === 'h' && !/^([0-9a-fA-F]{2})*$/.test(body)) throw new StixPatternError(`invalid hex constant`, at);
      if (c === 'b' && !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new StixPatternError(`invalid binary constant`, at);
      tokens.push({ kind: 'typed', text: `${c}'${body}'`, at });
      i = end + 1;
      continue;
    }
    if (c === "'") {
      // A string: a quote or a backslash inside is escaped with a backslash, and nothing else may be.
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= text.length) throw new StixPatternError('unterminated string', at);
        const d = text[j] as string;
        if (d === '\\') {
          const next = text[j + 1];
          if (next !== "'" && next !== '\\') throw new StixPatternError('invalid escape in string', j);
          value += next;
          j += 2;
          continue;
        }
        if (d === "'") break;
        value += d;
        j++;
      }
      tokens.push({ kind: 'string', text: value, at });
      i = j + 1;
      continue;
    }
    if ('[]():,.*'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, at });
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '!=' || two === '<=' || two === '>=') {
      tokens.push({ kind: 'punct', text: two, at });
      i += 2;
      continue;
    }
    if (c === '=' || c === '<' || c === '>') {
      tokens.push({ kind: 'punct', text: c, at });
      i++;
      continue;
    }
    const number = /^[-+]?(\d+(\.\d+)?|\.\d+)/.exec(text.slice(i));
    if (number && (c !== '-' && c !== '+' ? true : /\d|\./.test(text[i + 1] ?? ''))) {
      tokens.push({ kind: 'number', text: number[0], at });
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
    if (word) {
      tokens.push({ kind: 'word', text: word[0], at });
      i += word[0].length;
      continue;
    }
    throw new StixPatternError(`unexpected character ${JSON.stringify(c)}`, at);
  }
  return tokens;
}

class Parser {
  readonly #tokens: Token[];
  readonly #length: number;
  #i = 0;

  constructor(tokens: Token[], length: number) {
    this.#tokens = tokens;
    this.#length = length;
  }

  pattern(): void {
    if (this.#tokens.length === 0) throw new StixPatternError('empty pattern', 0);
    this.#observations();
    const extra = this.#peek();
    if (extra) throw new StixPatternError(`unexpected ${JSON.stringify(extra.text)}`, extra.at);
  }

  // observationExpressions: observationExpressionOr (FOLLOWEDBY observationExpressionOr)*
  #observations(): void {
    this.#observationOr();
    while (this.#word('FOLLOWEDBY')) this.#observationOr();
  }

  #observationOr(): void {
    this.#observationAnd();
    while (this.#word('OR')) this.#observationAnd();
  }

  #observationAnd(): void {
    this.#observation();
    while (this.#word('AND')) this.#observation();
  }

  #observation(): void {
    if (this.#punct('[')) {
      this.#comparisonOr();
      this.#expect(']');
    } else if (this.#punct('(')) {
      this.#observations();
      this.#expect(')');
    } else {
      this.#fail("expected '[' or '(' to start an observation expression");
    }
    this.#qualifiers();
  }

  #qualifiers(): void {
    for (;;) {
      if (this.#word('START')) {
        this.#typed('t');
        if (!this.#word('STOP')) this.#fail('expected STOP');
        this.#typed('t');
      } else if (this.#word('WITHIN')) {
        this.#number(false);
        if (!this.#word('SECONDS')) this.#fail('expected SECONDS');
      } else if (this.#word('REPEATS')) {
        this.#number(true);
        if (!this.#word('TIMES')) this.#fail('expected TIMES');
      } else {
        return;
      }
    }
  }

  #comparisonOr(): void {
    this.#comparisonAnd();
    while (this.#word('OR')) this.#comparisonAnd();
  }

  #comparisonAnd(): void {
    this.#propertyTest();
    while (this.#word('AND')) this.#propertyTest();
  }

  #propertyTest(): void {
    if (this.#punct('(')) {
      this.#comparisonOr();
      this.#expect(')');
      return;
    }
    if (this.#word('EXISTS')) {
      this.#objectPath();
      return;
    }
    this.#objectPath();
    this.#word('NOT');
    const token = this.#next('expected a comparison operator');
    if (token.kind === 'punct' && ['=', '!=', '<', '<=', '>', '>='].includes(token.text)) {
      this.#literal(['=', '!='].includes(token.text));
      return;
    }
    if (token.kind === 'word' && token.text === 'IN') {
      this.#set();
      return;
    }
    if (token.kind === 'word' && ['LIKE', 'MATCHES', 'ISSUBSET', 'ISSUPERSET'].includes(token.text)) {
      const value = this.#next(`expected a string after ${token.text}`);
      if (value.kind !== 'string') throw new StixPatternError(`${token.text} takes a string`, value.at);
      return;
    }
    throw new StixPatternError(`expected a comparison operator, found ${JSON.stringify(token.text)}`, token.at);
  }

  // objectPath: objectType ':' firstPathComponent objectPathComponent*
  #objectPath(): void {
    const type = this.#next('expected an object path');
    if (type.kind !== 'word' || !OBJECT_TYPE.test(type.text) || KEYWORDS.has(type.text)) {
      throw new StixPatternError(`invalid object type ${JSON.stringify(type.text)}`, type.at);
    }
    this.#expect(':');
    this.#pathComponent('first');
    for (;;) {
      if (this.#punct('.')) {
        this.#pathComponent('next');
      } else if (this.#punct('[')) {
        const index = this.#next('expected an index');
        const ok =
          (index.kind === 'punct' && index.text === '*') || (index.kind === 'number' && /^-?\d+$/.test(index.text));
        if (!ok) throw new StixPatternError('a list index is an integer or *', index.at);
        this.#expect(']');
      } else {
        return;
      }
    }
  }

  #pathComponent(which: 'first' | 'next'): void {
    const token = this.#next('expected a property name');
    if (token.kind === 'string') {
      if (token.text === '') throw new StixPatternError('empty property name', token.at);
      return;
    }
    if (token.kind !== 'word' || !PROPERTY.test(token.text)) {
      throw new StixPatternError(`invalid ${which === 'first' ? '' : 'nested '}property name`, token.at);
    }
  }

  #set(): void {
    this.#expect('(');
    this.#literal(true);
    while (this.#punct(',')) this.#literal(true);
    this.#expect(')');
  }

  #literal(booleanAllowed: boolean): void {
    const token = this.#next('expected a constant');
    if (token.kind === 'string' || token.kind === 'number' || token.kind === 'typed') return;
    if (booleanAllowed && token.kind === 'word' && (token.text === 'true' || token.text === 'false')) return;
    throw new StixPatternError(`expected a constant, found ${JSON.stringify(token.text)}`, token.at);
  }

  #number(integer: boolean): void {
    const token = this.#next('expected a number');
    if (token.kind !== 'number' || (integer && !/^\+?\d+$/.test(token.text)) || Number(token.text) <= 0) {
      throw new StixPatternError(`expected a positive ${integer ? 'integer' : 'number'}`, token.at);
    }
  }

  #typed(prefix: 't'): void {
    const token = this.#next('expected a timestamp');
    if (token.kind !== 'typed' || !token.text.startsWith(`${prefix}'`)) {
      throw new StixPatternError("expected a timestamp t'...'", token.at);
    }
  }

  #peek(): Token | undefined {
    return this.#tokens[this.#i];
  }

  #next(what: string): Token {
    const token = this.#tokens[this.#i];
    if (!token) throw new StixPatternError(`${what}, found the end of the pattern`, this.#length);
    this.#i++;
    return token;
  }

  #punct(text: string): boolean {
    const token = this.#peek();
    if (token?.kind === 'punct' && token.text === text) {
      this.#i++;
      return true;
    }
    return false;
  }

  #word(text: string): boolean {
    const token = this.#peek();
    if (token?.kind === 'word' && token.text === text) {
      this.#i++;
      return true;
    }
    return false;
  }

  #expect(text: string): void {
    if (!this.#punct(text)) this.#fail(`expected ${JSON.stringify(text)}`);
  }

  #fail(message: string): never {
    const token = this.#peek();
    throw new StixPatternError(
      token ? `${message}, found ${JSON.stringify(token.text)}` : `${message}, found the end of the pattern`,
      token?.at ?? this.#length,
    );
  }
}
