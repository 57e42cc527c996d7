import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerNameProblem, headersSchema, headerValueProblem } from './header-fields.js';

// The check is what undici (every request core and the packages send goes through it) refuses: each character is
// tried on a real request to a local server, and the check must agree with undici about every one of them.

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/**
 * Whether undici sends a request with this header, or refuses it before sending. A dispatcher of its own each time,
 * so that no refused request can hold up the next (one shared pool stopped answering after a few refusals here).
 */
async function undiciSends(name: string, value: string): Promise<boolean> {
  const dispatcher = new Agent();
  try {
    const response = await request(base, { headers: { [name]: value }, dispatcher });
    await response.body.dump();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') return false;
    throw error;
  } finally {
    await dispatcher.destroy();
  }
}

/** Every character up to U+017F, the line and paragraph separators, and one past the Basic Multilingual Plane. */
const CHARACTERS = [
  ...Array.from({ length: 0x180 }, (_, code) => String.fromCharCode(code)),
  '\u2028',
  '\u2029',
  '\u{1f600}',
];

// Some 800 real requests each: a timeout for a loaded machine.
describe('headerValueProblem', () => {
  it('refuses exactly the characters undici refuses in a value', { timeout: 30_000 }, async () => {
    const disagreements: string[] = [];
    for (const char of CHARACTERS) {
      const value = `a${char}b`;
      const sent = await undiciSends('x-test', value);
      if (sent !== (headerValueProblem(value) === undefined)) disagreements.push(JSON.stringify(char));
    }
    expect(disagreements).toEqual([]);
  });

  it('says what is wrong and where, never what the value holds', () => {
    expect(headerValueProblem('a\r\nInjected: 1')).toBe(
      'a header value cannot hold a line break (CR or LF): character 2 is one',
    );
    expect(headerValueProblem('secret\u0000')).toBe('a header value cannot hold a NUL character: character 7 is one');
    expect(headerValueProblem('s\u0007')).toMatch(/^a header value cannot hold a control character .*: character 2/);
    expect(headerValueProblem('s\u2028')).toMatch(/above U\+00FF/);
    expect(headerValueProblem('x'.repeat(8193))).toBe('a header value has at most 8192 characters; this one has 8193');
    expect(headerValueProblem('Bearer abc\tdéf')).toBeUndefined();
    expect(headerValueProblem('')).toBeUndefined();
  });
});

describe('headerNameProblem', () => {
  it('refuses exactly the characters undici refuses in a name (RFC 9110 tokens)', { timeout: 30_000 }, async () => {
    const disagreements: string[] = [];
    for (const char of CHARACTERS) {
      const name = `x${char}y`;
      const sent = await undiciSends(name, 'v');
      if (sent !== (headerNameProblem(name) === undefined)) disagreements.push(JSON.stringify(char));
    }
    expect(disagreements).toEqual([]);
  });

  it('quotes the name escaped and says what is wrong with it', () => {
    expect(headerNameProblem('x-tenant\r\nInjected')).toBe(
      'expected a header name (an RFC 9110 token: letters, digits and !#$%&\'*+-.^_`|~), got "x-tenant\\r\\nInjected" (it has a line break)',
    );
    expect(headerNameProblem('x tenant')).toMatch(/got "x tenant" \(it has a space\)$/);
    expect(headerNameProblem('x:y')).toMatch(/\(it has ":"\)$/);
    expect(headerNameProblem('')).toMatch(/got "" \(it is empty\)$/);
    expect(headerNameProblem('x'.repeat(257))).toMatch(/it has 257 characters, at most 256 are taken/);
    expect(headerNameProblem("X-Custom_Auth.1!#$%&'*+^`|~")).toBeUndefined();
  });
});

describe('headersSchema', () => {
  it('puts a bad value at its header, and a bad name at the map', () => {
    const result = headersSchema.safeParse({ 'x-tenant': 'a\r\nb', 'bad name': 'v', ok: 'fine' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: ['x-tenant'], message: 'a header value cannot hold a line break (CR or LF): character 2 is one' },
      { path: [], message: expect.stringContaining('got "bad name" (it has a space)') },
    ]);
    expect(headersSchema.parse({ authorization: 'Bearer t' })).toEqual({ authorization: 'Bearer t' });
  });
});
