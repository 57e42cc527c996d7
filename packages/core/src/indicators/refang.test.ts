import { describe, expect, it } from 'vitest';
import { refang } from './refang.js';

describe('refang', () => {
  it.each([
    ['hxxp://evil[.]com/x', 'http://evil.com/x'],
    ['hxxps://evil[.]com', 'https://evil.com'],
    ['hXXp://evil.com', 'http://evil.com'],
    ['HXXPS://evil.com', 'https://evil.com'],
    ['fxp://files.example.net/a', 'ftp://files.example.net/a'],
    ['hxxps[://]foo(.)bar/', 'https://foo.bar/'],
    ['hxxp[:]//evil.com', 'http://evil.com'],
    ['1.2.3[.]4', '1.2.3.4'],
    ['evil{.}com', 'evil.com'],
    ['evil[dot]com', 'evil.com'],
    ['evil(DOT)com', 'evil.com'],
    ['user[@]example.com', 'user@example.com'],
    ['user[at]example.com', 'user@example.com'],
    ['user(at)example.com', 'user@example.com'],
  ])('%s -> %s', (input, expected) => {
    expect(refang(input)).toBe(expected);
  });

  it.each([
    ['http://evil.com/x'],
    ['evil.com'],
    ['[2001:db8::1]'],
    ['[::]'],
    ['http://evil.com/hxxp'],
    ['evil[.com'],
    ['evil[.)com'],
    ['hxxpserver.com'],
  ])('leaves %s alone', (input) => {
    expect(refang(input)).toBe(input);
  });
});
