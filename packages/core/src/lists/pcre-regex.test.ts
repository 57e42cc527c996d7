import { describe, expect, it } from 'vitest';
import { type LinearRegex, MAX_PATTERN_INSTRUCTIONS } from './linear-regex.js';
import { compilePcreRegex } from './pcre-regex.js';

function compiled(text: string): LinearRegex {
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
    ['/^(?P<word>[a-z]+)-(?<other>[a-z]+)$/', 'abc-def', 'abc-'],
    ["/^(?'word'[a-z]+)$/", 'abc', 'ab1'],
    ['/\\Aabc\\z/', 'abc', 'abc\n'],
    ['/^abc\\Z/', 'abc\n', 'abc\nd'],
    ['/^(abc\\Z)/', 'abc\n', 'abcd'],
    ['/^[[:digit:][:upper:]]+$/', '42AB', '42ab'],
    ['/^[[:^digit:]]+$/', 'ab', 'a1'],
    ['/(?i)^mixed$/', 'MiXeD', 'mixe'],
    ['/^a(?i)b|c$/', 'aB', 'AB'],
    ['/^a(?i)b|c$/', 'xC', 'xD'],
    ['/^a(?i:b)c$/', 'aBc', 'aBC'],
    ['/^a(?i)b(?-i)c$/', 'aBc', 'aBC'],
    ['/^a{$/', 'a{', 'a'],
    ['/^a{,2}$/', 'a{,2}', 'aa'],
    ['/^\\Qa.b*\\E$/', 'a.b*', 'axbb'],
    ['/^[\\Q.]\\E]+$/', '.]', 'a'],
    ['/^\\x41\\x{263A}\\101\\o{102}[\\1]$/u', 'A\u263AAB\x01', 'A'],
    ['/^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\11$/', 'abcdefghij\t', 'abcdefghija'],
    ['/^\\pL+$/u', 'héllo', 'h3llo'],
    ['/^\\p{Greek}+$/u', 'αβγ', 'abc'],
    ['/^[]a]+$/', ']a]', 'b'],
    ['/^\\-\\@\\#\\é$/', '-@#é', '-@#'],
    ['/^a\\hb$/', 'a\tb', 'a\nb'],
    ['/^a\\vb$/', 'a\u2028b', 'a\tb'],
    ['/^a[\\b]$/', 'a\b', 'ab'],
    ['/^\\e\\a\\cA\\c?$/', '\x1B\x07\x01\x7F', '\x1B'],
    ['/^(?#comment)x$/', 'x', 'y'],
    ['/^abc/A', 'abcd', 'xabc'],
    ['/abc/A', 'abcd', 'xabc'],
    ['/^a+b/U', 'aaab', 'b'],
    ['/(?<=@)evil\\.example$/', 'user@evil.example', 'mail.evil.example'],
    ['/(?<!www\\.)example\\.com$/', 'mail.example.com', 'www.example.com'],
    ['/^\u{1F600}+$/u', '\u{1F600}\u{1F600}', '\u{1F600}a'],
  ])('%s matches %j and not %j', (pattern, yes, no) => {
    const regex = compiled(pattern);
    expect(regex.test(yes)).toBe(true);
    expect(regex.test(no)).toBe(false);
  });

  it('keeps MISP regex warninglists (phone numbers, contact addresses) as they mean', () => {
    // From MISP/misp-warninglists lists/common-contact-emails and lists/phone_numbers (without its `g`, which
    // preg_match does not take).
    const contact = compiled('/^(security|noc|soc|abuse)\\@.*\\..*$/i');
    expect(contact.test('ABUSE@example.com')).toBe(true);
    expect(contact.test('sales@example.com')).toBe(false);
    const phone = compiled('/((?:\\+|00)44)?07700900([0-9]{3})/');
    expect(phone.test('+4407700900123')).toBe(true);
    expect(phone.test('07700901123')).toBe(false);
  });

  it.each([
    ['abc', /does not start with a delimiter/],
    ['/abc', /no closing delimiter "\/"/],
    ['/a++/', /possessive quantifier .* needs a backtracking engine/],
    ['/a{2}+/', /possessive quantifier/],
    ['/(?>a)/', /atomic group .* needs a backtracking engine/],
    ['/(?|a)/', /branch-reset/],
    ['/(?(1)a|b)/', /conditional group/],
    ['/(?R)/', /recursion/],
    ['/^(a+)\\1$/', /back-reference \\1, which needs a backtracking engine/],
    ['/^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)\\11$/', /back-reference \\11/],
    ['/^(a)\\8/', /back-reference \\8/],
    ['/^(?P<w>a+)(?P=w)$/', /back-reference \(\?P=w\)/],
    ['/^(?<w>a+)\\k<w>$/', /back-reference \\k<w>/],
    ['/^(a+)\\g{1}$/', /back-reference \\g\{1\}/],
    ['/^(?=a)a/', /lookahead \(\?=…\), which needs a backtracking engine/],
    ['/^(?!www\\.).*/', /lookahead \(\?!…\)/],
    ['/(?<=(a))b/', /cannot be compiled by RE2: .*capture in lookbehind/],
    ['/\\Ga/', /escape \\G/],
    ['/a\\Kb/', /escape \\K/],
    ['/a\\Zb/', /\\Z before the end of the pattern/],
    ['/a/x', /"x" \(extended\)/],
    ['/(?x)a/', /inline modifier "x"/],
    ['/a/e', /unknown or unsupported modifier "e"/],
    ['/a/g', /unknown or unsupported modifier "g"/],
    ['/[[:foo:]]/', /unknown POSIX class/],
    ['/\\p{L&}/', /cannot be compiled by RE2/],
    ['/(a/', /cannot be compiled by RE2: .*missing closing \)/],
    ['/a{1001}/', /cannot be compiled by RE2: .*invalid repeat count/],
    ['/(*UTF8)a/', /PCRE verb/],
  ])('refuses %s', (pattern, reason) => {
    expect(refused(pattern)).toMatch(reason);
  });

  it(`refuses a pattern that compiles to more than ${MAX_PATTERN_INSTRUCTIONS} instructions, and says to split it`, () => {
    const labels = '/^[a-z0-9-]{1,63}(\\.[a-z0-9-]{1,63}){1,8}$/';
    expect(refused(labels)).toMatch(/compiles to \d+ instructions, more than the 400 .*split it into several entries/);
    expect(compiled('/^[a-z0-9-]{1,63}\\.[a-z0-9-]{1,63}\\.evil\\.example$/').instructions).toBeLessThanOrEqual(
      MAX_PATTERN_INSTRUCTIONS,
    );
  });

  it('refuses a huge pattern before compiling it', () => {
    // RE2 would build a program of 20,000 instructions for the first (tens of milliseconds, for one entry); the count
    // made while reading refuses it first ("would compile to about", not "compiles to"), as it does a long literal.
    expect(refused(`/${'a{999}'.repeat(20)}/`)).toMatch(/would compile to about 20000 instructions/);
    expect(refused(`/${'a'.repeat(50_000)}/`)).toMatch(/would compile to about 50000 instructions/);
  });
});
