import { describe, expect, it } from 'vitest';
import { compilePcreRegex } from './pcre-regex.js';

function compiled(text: string): RegExp {
  const result = compilePcreRegex(text);
  if (!result.ok) throw new Error(result.reason);
  return result.regex;
}

function refused(text: string): string {
  const result = compilePcreRegex(text);
  if (result.ok) throw new Error(`expected ${text} to be refused, got ${result.regex}`);
  return result.reason;
}

describe('compilePcreRegex', () => {
  it.each([
    ['/^evil\\.(com|net)$/i', 'EVIL.net', 'evil.org'],
    ['#^https?://[^/]+/wp-admin/#', 'https://x.example/wp-admin/a', 'https://x.example/wp-login'],
    ['{^a{2}b}', 'aab', 'ab'],
    ['/^(?P<word>[a-z]+)-(?P=word)$/', 'abc-abc', 'abc-abd'],
    ['/\\Aabc\\z/', 'abc', 'abc\n'],
    ['/^abc\\Z/', 'abc\n', 'abc\nd'],
    ['/^[[:digit:][:upper:]]+$/', '42AB', '42ab'],
    ['/(?i)^mixed$/', 'MiXeD', 'mixe'],
    ['/^a(?i:b)c$/', 'aBc', 'aBC'],
    ['/^a{$/', 'a{', 'a'],
    ['/^\\Qa.b*\\E$/', 'a.b*', 'axbb'],
    ['/^\\x41\\x{263A}$/u', 'A\u263A', 'A'],
    ['/^\\pL+$/u', 'héllo', 'h3llo'],
    ['/^[]a]+$/', ']a]', 'b'],
    ['/^\\-\\@\\#$/', '-@#', '-@'],
    ['/^a\\hb$/', 'a\tb', 'a\nb'],
    ['/^(?#comment)x$/', 'x', 'y'],
    ['/^abc/A', 'abcd', 'xabc'],
  ])('%s matches %j and not %j', (pattern, yes, no) => {
    const regex = compiled(pattern);
    expect(regex.test(yes)).toBe(true);
    expect(regex.test(no)).toBe(false);
  });

  it.each([
    ['abc', /does not start with a delimiter/],
    ['/abc', /no closing delimiter "\/"/],
    ['/a++/', /possessive quantifier/],
    ['/a{2}+/', /possessive quantifier/],
    ['/(?>a)/', /atomic group/],
    ['/(?|a)/', /branch-reset/],
    ['/(?(1)a|b)/', /conditional/],
    ['/(?R)/', /recursion/],
    ['/a(?i)b/', /after the start of the pattern/],
    ['/\\Ga/', /escape \\G/],
    ['/a/x', /"x" \(extended\)/],
    ['/a/U', /"U" \(ungreedy\)/],
    ['/a/e', /unknown or unsupported modifier "e"/],
    ['/[[:foo:]]/', /unknown POSIX class/],
    ['/\\p{Greek}/', /JavaScript cannot compile it/],
    ['/(a/', /JavaScript cannot compile it/],
  ])('refuses %s', (pattern, reason) => {
    expect(refused(pattern)).toMatch(reason);
  });
});
