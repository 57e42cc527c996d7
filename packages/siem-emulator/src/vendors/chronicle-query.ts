// The subset of Google SecOps' UDM search language the Chronicle emulator evaluates: comparisons of a UDM field path
// with a double-quoted string (`=`, `!=`, optional `nocase`), a number, or a /regular expression/; `AND`, `OR`,
// `NOT` and parentheses; and the grouped fields `ip`, `hostname`, `domain`, `hash`, `email`.
// - https://cloud.google.com/chronicle/docs/investigation/udm-search
// - udmSearch: https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/udmSearch
import { camel, type UdmEvent } from './chronicle-udm.js';

/** The query could not be compiled: Chronicle's `INVALID_ARGUMENT` answer quotes the reason. */
export class UdmQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UdmQueryError';
  }
}

type Literal = { kind: 'string'; value: string; nocase: boolean } | { kind: 'number'; value: number } | RegExp;

type Node =
  | { op: 'and' | 'or'; left: Node; right: Node }
  | { op: 'not'; operand: Node }
  | { op: '=' | '!='; field: string; literal: Literal };

const NOUNS = ['principal', 'src', 'target', 'intermediary', 'observer', 'about'];

/** Grouped fields: one name for the same kind of value wherever the UDM holds it. */
const GROUPED: Record<string, readonly string[]> = {
  ip: NOUNS.map((n) => `${n}.ip`),
  hostname: NOUNS.map((n) => `${n}.hostname`),
  domain: [...NOUNS.map((n) => `${n}.domain.name`), 'network.dns.questions.name'],
  hash: NOUNS.flatMap((n) => [`${n}.file.md5`, `${n}.file.sha1`, `${n}.file.sha256`]),
  email: [
    ...NOUNS.map((n) => `${n}.user.email_addresses`),
    ...NOUNS.map((n) => `${n}.email`),
    'network.email.from',
    'network.email.to',
  ],
};

/** Compiles a query; the result tells whether an event matches it. */
export function compileUdmQuery(query: string): (event: UdmEvent) => boolean {
  const tokens = tokenize(query);
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const isWord = (word: string) => peek()?.kind === 'word' && peek()?.text.toUpperCase() === word;

  function parseOr(): Node {
    let left = parseAnd();
    while (isWord('OR')) {
      next();
      left = { op: 'or', left, right: parseAnd() };
    }
    return left;
  }
  function parseAnd(): Node {
    let left = parseUnary();
    while (isWord('AND')) {
      next();
      left = { op: 'and', left, right: parseUnary() };
    }
    return left;
  }
  function parseUnary(): Node {
    if (isWord('NOT')) {
      next();
      return { op: 'not', operand: parseUnary() };
    }
    if (peek()?.kind === '(') {
      next();
      const inner = parseOr();
      if (next()?.kind !== ')') throw new UdmQueryError('compilation error: expected ")"');
      return inner;
    }
    const field = next();
    if (field?.kind !== 'word' || !/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/.test(field.text)) {
      throw new UdmQueryError(`compilation error: expected a UDM field, got ${field ? field.text : 'the end'}`);
    }
    const op = next();
    if (op?.kind !== '=' && op?.kind !== '!=') {
      throw new UdmQueryError(`compilation error: expected = or != after ${field.text}`);
    }
    const value = next();
    let literal: Literal;
    if (value?.kind === 'string') {
      const nocase = isWord('NOCASE');
      if (nocase) next();
      literal = { kind: 'string', value: value.text, nocase };
    } else if (value?.kind === 'regex') {
      literal = new RegExp(value.text);
    } else if (value?.kind === 'word' && /^-?\d+(\.\d+)?$/.test(value.text)) {
      literal = { kind: 'number', value: Number(value.text) };
    } else {
      throw new UdmQueryError(`compilation error: expected a value after ${field.text} ${op.kind}`);
    }
    if (!GROUPED[field.text] && !field.text.includes('.')) {
      throw new UdmQueryError(`compilation error: unknown field ${field.text}`);
    }
    return { op: op.kind, field: field.text, literal };
  }

  if (tokens.length === 0) throw new UdmQueryError('compilation error: the query is empty');
  const tree = parseOr();
  if (at < tokens.length) throw new UdmQueryError(`compilation error: unexpected ${tokens[at]?.text}`);
  return (event) => evaluate(tree, event);
}

function evaluate(node: Node, event: UdmEvent): boolean {
  switch (node.op) {
    case 'and':
      return evaluate(node.left, event) && evaluate(node.right, event);
    case 'or':
      return evaluate(node.left, event) || evaluate(node.right, event);
    case 'not':
      return !evaluate(node.operand, event);
    default: {
      const paths = GROUPED[node.field] ?? [node.field];
      const values = paths.flatMap((path) => valuesAt(event, path.split('.').map(camel)));
      const matches = values.some((value) => test(node.literal, value));
      return node.op === '=' ? matches : values.length > 0 && !matches;
    }
  }
}

function test(literal: Literal, value: unknown): boolean {
  if (literal instanceof RegExp) return typeof value === 'string' && literal.test(value);
  if (literal.kind === 'number') return typeof value === 'number' && value === literal.value;
  if (typeof value !== 'string') return false;
  return literal.nocase ? value.toLowerCase() === literal.value.toLowerCase() : value === literal.value;
}

/** Every value at a path, through repeated fields. */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path));
  if (path.length === 0) return value === undefined ? [] : [value];
  if (typeof value !== 'object' || value === null) return [];
  const [head, ...rest] = path as [string, ...string[]];
  return valuesAt((value as Record<string, unknown>)[head], rest);
}

type Token = { kind: 'word' | 'string' | 'regex' | '(' | ')' | '=' | '!='; text: string };

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c, text: c });
      i++;
    } else if (c === '=') {
      tokens.push({ kind: '=', text: '=' });
      i++;
    } else if (c === '!' && query[i + 1] === '=') {
      tokens.push({ kind: '!=', text: '!=' });
      i += 2;
    } else if (c === '"' || c === '/') {
      let text = '';
      i++;
      for (;;) {
        if (i >= query.length)
          throw new UdmQueryError(`compilation error: unterminated ${c === '"' ? 'string' : 'regular expression'}`);
        const d = query[i] as string;
        if (d === '\\' && i + 1 < query.length) {
          // In a string, a backslash escapes the next character; a regular expression keeps it.
          text += c === '"' ? (query[i + 1] as string) : `\\${query[i + 1]}`;
          i += 2;
        } else if (d === c) {
          i++;
          break;
        } else {
          text += d;
          i++;
        }
      }
      tokens.push({ kind: c === '"' ? 'string' : 'regex', text });
    } else {
      const match = /^[^\s()=!"/]+/.exec(query.slice(i));
      if (!match) throw new UdmQueryError(`compilation error: unexpected ${JSON.stringify(c)}`);
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}
