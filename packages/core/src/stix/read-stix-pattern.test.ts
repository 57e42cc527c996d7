import { describe, expect, it } from 'vitest';
import { readStixPattern, type StixPatternReading } from './read-stix-pattern.js';

function values(reading: StixPatternReading): string[] {
  if (!reading.ok) throw new Error(`not read: ${reading.reason}`);
  return reading.parts.map((part) =>
    part.ok
      ? `${part.comparison.objectType}:${part.comparison.path.join('.')}=${part.comparison.value}`
      : `! ${part.reason}`,
  );
}

describe('readStixPattern', () => {
  it('reads one comparison, unquoting path components and unescaping the literal', () => {
    expect(values(readStixPattern("[file:hashes.'SHA-256' = 'ab\\'c\\\\d']"))).toEqual(["file:hashes.SHA-256=ab'c\\d"]);
    expect(values(readStixPattern("[ domain-name:value=='evil.com' ]"))).toEqual(['domain-name:value=evil.com']);
  });

  it('keeps newlines, tabs, brackets and non-ASCII inside a literal as they are', () => {
    expect(values(readStixPattern("[url:value = 'a\nb\t]c [OR] ü😀']"))).toEqual(['url:value=a\nb\t]c [OR] ü😀']);
  });

  it('reads OR inside an observation, between observations and in parentheses', () => {
    const pattern =
      "([ipv4-addr:value = '198.51.100.7' OR (ipv6-addr:value = '2001:db8::1')] OR [url:value = 'http://a.com/']) " +
      "OR [email-addr:value = 'x@a.com']";
    expect(values(readStixPattern(pattern))).toEqual([
      'ipv4-addr:value=198.51.100.7',
      'ipv6-addr:value=2001:db8::1',
      'url:value=http://a.com/',
      'email-addr:value=x@a.com',
    ]);
  });

  it('skips comments and every whitespace the grammar allows', () => {
    expect(
      values(readStixPattern("/* a list */\u00a0[url:value\u2028=\r\n'x'] // end\n OR [url:value = 'y']")),
    ).toEqual(['url:value=x', 'url:value=y']);
  });

  it('reports, with what it is, each part that names no single value, and keeps the others', () => {
    const reading = values(
      readStixPattern(
        "[domain-name:value = 'a.com'] OR [file:hashes.MD5 = 'x' AND file:name = 'y'] OR " +
          "[url:value = 'b'] AND [url:value = 'c'] OR [url:value = 'd'] REPEATS 5 TIMES OR " +
          "[url:value = 'e'] FOLLOWEDBY [url:value = 'f'] OR [url:value MATCHES '^h'] OR " +
          "[url:value NOT = 'g'] OR [ipv4-addr:value ISSUBSET '10.0.0.0/8'] OR [url:value IN ('i', 'j')] OR " +
          "[file:size = 12] OR [EXISTS file:name] OR [url:value = 'k'] WITHIN 60 SECONDS " +
          "START t'2016-06-01T00:00:00Z' STOP t'2016-07-01T00:00:00Z'",
      ),
    );
    expect(reading).toEqual([
      'domain-name:value=a.com',
      "! file:hashes.MD5 = 'x' AND file:name = 'y' joins comparisons with AND (all must hold), which no single indicator expresses",
      "! [url:value = 'b'] AND [url:value = 'c'] joins observations with AND (all must be seen), which no single indicator expresses",
      "! [url:value = 'd'] REPEATS 5 TIMES has the qualifier REPEATS, which a list of indicators cannot keep",
      "! [url:value = 'e'] FOLLOWEDBY [url:value = 'f'] joins observations with FOLLOWEDBY (a sequence), which no single indicator expresses",
      "! url:value MATCHES '^h' uses the operator MATCHES; only = with a string names one indicator",
      "! url:value NOT = 'g' uses the operator NOT =; only = with a string names one indicator",
      "! ipv4-addr:value ISSUBSET '10.0.0.0/8' uses the operator ISSUBSET; only = with a string names one indicator",
      "! url:value IN ('i', 'j') uses the operator IN; only = with a string names one indicator",
      '! file:size = 12 compares with something other than a string literal',
      '! EXISTS file:name tests EXISTS, which names no value',
      "! [url:value = 'k'] WITHIN 60 SECONDS START t'2016-06-01T00:00:00Z' STOP t'2016-07… has the qualifier WITHIN and START/STOP, which a list of indicators cannot keep",
    ]);
  });

  it('reads list indexes in paths, so that they can be reported as paths', () => {
    expect(values(readStixPattern("[email-message:to_refs[*].value = 'a@b.com']"))).toEqual([
      'email-message:to_refs.[*].value=a@b.com',
    ]);
  });

  it.each([
    [
      "[url:value = 'a\\nb']",
      'a string literal has "\\n"; only \\\' and \\\\ are escapes in STIX patterns (at character 16)',
    ],
    ["[url:value = 'open]", 'a string literal is not closed (at character 14)'],
    ["[url:value = 'a''b']", 'expected "]" or OR, found a string literal (at character 17)'],
    [
      "[file:hashes.SHA-256 = 'x']",
      "the property name SHA-256 has a hyphen, so it must be quoted ('SHA-256') (at character 14)",
    ],
    ["url:value = 'x'", 'expected "[" or "(", found "url" (at character 1)'],
    ["[url:value = 'x'", 'expected "]" or OR, found the end of the pattern (at character 17)'],
    ["[url:value = 'x'] [url:value = 'y']", 'expected the end of the pattern, found "[" (at character 19)'],
    ['', 'expected "[" or "(", found the end of the pattern (at character 1)'],
    ["[url:value ~ 'x']", 'unexpected character "~" (at character 12)'],
    ["[url:value = 'x'] /* open", 'a comment is not closed (at character 19)'],
  ])('says why %j is not a pattern', (pattern, reason) => {
    expect(readStixPattern(pattern)).toEqual({ ok: false, reason: `is not a valid STIX pattern: ${reason}` });
  });

  it('refuses a pattern nested deeper than 100 levels, in every place parentheses nest, instead of overflowing', () => {
    const deep = 20_000;
    for (const pattern of [
      `${'('.repeat(deep)}[url:value = 'x']${')'.repeat(deep)}`,
      `[${'('.repeat(deep)}url:value = 'x'${')'.repeat(deep)}]`,
      `[url:value IN ${'('.repeat(deep)}'x'${')'.repeat(deep)}]`,
    ]) {
      const reading = readStixPattern(pattern);
      expect(reading.ok).toBe(false);
      expect(!reading.ok && reading.reason).toMatch(/nested deeper than 100 levels/);
    }
    // 100 levels are still read.
    expect(values(readStixPattern(`${'('.repeat(99)}[url:value = 'x']${')'.repeat(99)}`))).toEqual(['url:value=x']);
  });
});
