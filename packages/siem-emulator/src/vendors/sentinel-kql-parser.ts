// The reading half of the KQL interpreter (sentinel-kql.ts runs what it reads): the tokenizer, which decodes string
// literals by Kusto's rules, and the parser of operators, aggregations and expressions; a query it cannot read is a
// syntax error (SYN0002) as Log Analytics answers it. Sources are listed in sentinel-kql.ts.

/** The Kusto types the interpreter knows. */
export type KqlType = 'string' | 'datetime' | 'real' | 'long' | 'int' | 'bool' | 'dynamic';

/** A query Log Analytics would refuse: `syntax` (SYN0002) or `semantic` (SEM0100 and kin). */
export class KqlError extends Error {
  readonly kind: 'syntax' | 'semantic';
  readonly code: string;

  constructor(kind: 'syntax' | 'semantic', code: string, message: string) {
    super(message);
    this.name = 'KqlError';
    this.kind = kind;
    this.code = code;
  }
}

type Token =
  | { kind: 'ident'; text: string; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; value: number; text: string; pos: number }
  | { kind: 'punct'; text: string; pos: number }
  | { kind: 'end'; pos: number };

/** An expression of a `where`, `mv-expand` or aggregation, as the parser read it. */
export type Expr =
  | { kind: 'literal'; value: unknown; type: KqlType }
  | { kind: 'column'; name: string }
  | { kind: 'member'; target: Expr; name: string }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'binary'; op: string; left: Expr; right: Expr };

/** One aggregation of a `summarize`: its result column, function and argument. */
export interface Aggregation {
  name: string;
  fn: 'min' | 'max' | 'count';
  arg: Expr | undefined;
}

/** Reads a tokenized query, one operator, aggregation list or expression at a time. */
export class Parser {
  readonly #tokens: Token[];
  #at = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  get #peek(): Token {
    return this.#tokens[this.#at] as Token;
  }

  accept(text: string): boolean {
    const token = this.#peek;
    if ((token.kind === 'punct' || token.kind === 'ident') && token.text === text) {
      this.#at++;
      return true;
    }
    return false;
  }

  ident(what: string): string {
    const token = this.#peek;
    if (token.kind !== 'ident') this.fail(what);
    this.#at++;
    return (token as { text: string }).text;
  }

  number(): number {
    const token = this.#peek;
    if (token.kind !== 'number' || !Number.isInteger(token.value) || token.value < 0) this.fail('a whole number');
    this.#at++;
    return (token as { value: number }).value;
  }

  /** An operator name after `|`: `where`, `mv-expand`... */
  operatorName(): string {
    let name = this.ident('a query operator');
    while (this.#peek.kind === 'punct' && (this.#peek as { text: string }).text === '-') {
      this.#at++;
      name += `-${this.ident('a query operator')}`;
    }
    return name;
  }

  aggregations(): Aggregation[] {
    const list: Aggregation[] = [];
    do {
      let name: string | undefined;
      let fn = this.ident('an aggregation');
      if (this.accept('=')) {
        name = fn;
        fn = this.ident('an aggregation');
      }
      if (fn !== 'min' && fn !== 'max' && fn !== 'count') {
        throw new KqlError('semantic', 'SEM0219', `summarize operator: unknown aggregation function '${fn}'`);
      }
      this.expect('(');
      let arg: Expr | undefined;
      if (!this.accept(')')) {
        arg = this.expression();
        this.expect(')');
      }
      if (fn !== 'count' && !arg) this.fail('an argument');
      const fallback = fn === 'count' ? 'count_' : `${fn}_${arg?.kind === 'column' ? arg.name : 'x'}`;
      list.push({ name: name ?? fallback, fn, arg });
    } while (this.accept(','));
    return list;
  }

  expression(): Expr {
    let left = this.#and();
    while (this.accept('or')) left = { kind: 'binary', op: 'or', left, right: this.#and() };
    return left;
  }

  #and(): Expr {
    let left = this.#comparison();
    while (this.accept('and')) left = { kind: 'binary', op: 'and', left, right: this.#comparison() };
    return left;
  }

  #comparison(): Expr {
    const left = this.#primary();
    for (const op of ['==', '!=', '<=', '>=', '<', '>']) {
      if (this.accept(op)) return { kind: 'binary', op, left, right: this.#primary() };
    }
    return left;
  }

  #primary(): Expr {
    const token = this.#peek;
    if (token.kind === 'string') {
      this.#at++;
      return { kind: 'literal', value: token.value, type: 'string' };
    }
    if (token.kind === 'number') {
      this.#at++;
      return { kind: 'literal', value: token.value, type: Number.isInteger(token.value) ? 'long' : 'real' };
    }
    if (this.accept('(')) {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (token.kind !== 'ident') this.fail('an expression');
    this.#at++;
    const name = (token as { text: string }).text;
    if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true', type: 'bool' };
    let expr: Expr;
    if (this.accept('(')) {
      const args: Expr[] = [];
      if (!this.accept(')')) {
        do args.push(this.expression());
        while (this.accept(','));
        this.expect(')');
      }
      expr = { kind: 'call', name, args };
    } else {
      expr = { kind: 'column', name };
    }
    while (this.accept('.')) expr = { kind: 'member', target: expr, name: this.ident('a property name') };
    return expr;
  }

  expect(text: string): void {
    if (!this.accept(text)) this.fail(`'${text}'`);
  }

  expectEnd(): void {
    if (this.#peek.kind !== 'end') this.fail('the end of the query');
  }

  fail(_expected?: string): never {
    const token = this.#peek;
    const text =
      token.kind === 'end'
        ? '<EOF>'
        : token.kind === 'string'
          ? JSON.stringify(token.value)
          : (token as { text: string }).text;
    throw new KqlError('syntax', 'SYN0002', `Query could not be parsed at '${text}' on line [1,${token.pos}]`);
  }
}

/** Splits a query into tokens; a string literal is decoded by Kusto's rules. */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const syntax = (at: number, text: string): never => {
    throw new KqlError('syntax', 'SYN0002', `Query could not be parsed at '${text}' on line [1,${at}]`);
  };
  while (i < query.length) {
    const ch = query[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (query.startsWith('//', i)) {
      while (i < query.length && query[i] !== '\n') i++;
      continue;
    }
    const start = i;
    if (ch === '@' && (query[i + 1] === "'" || query[i + 1] === '"')) {
      const quote = query[i + 1] as string;
      i += 2;
      let value = '';
      for (;;) {
        if (i >= query.length || query[i] === '\n' || query[i] === '\r') syntax(start, query.slice(start, i));
        if (query[i] === quote) {
          if (query[i + 1] === quote) {
            value += quote;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += query[i];
        i++;
      }
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    if (ch === "'" || ch === '"') {
      i++;
      let value = '';
      for (;;) {
        if (i >= query.length || query[i] === '\n' || query[i] === '\r') syntax(start, query.slice(start, i));
        const c = query[i] as string;
        if (c === ch) {
          i++;
          break;
        }
        if (c === '\\') {
          const next = query[i + 1];
          const escapes: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', t: '\t', n: '\n', r: '\r' };
          if (next === undefined || !(next in escapes)) syntax(i, query.slice(i, i + 2));
          value += escapes[next as string];
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      tokens.push({ kind: 'string', value, pos: start });
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', value: Number(match[0]), text: match[0], pos: start });
      i += match[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'ident', text: match[0], pos: start });
      i += match[0].length;
      continue;
    }
    const two = query.slice(i, i + 2);
    if (['==', '!=', '<=', '>='].includes(two)) {
      tokens.push({ kind: 'punct', text: two, pos: start });
      i += 2;
      continue;
    }
    if ('|(),.=<>-'.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch, pos: start });
      i++;
      continue;
    }
    syntax(start, ch);
  }
  tokens.push({ kind: 'end', pos: query.length });
  return tokens;
}
