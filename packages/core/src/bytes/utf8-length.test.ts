import { describe, expect, it } from 'vitest';
import { utf8Length } from './host-bytes.js';

describe('utf8Length', () => {
  it('counts as Buffer.byteLength does: ASCII, 2-, 3- and 4-byte characters, lone surrogates', () => {
    const samples = [
      '',
      'abc',
      'épidémie',
      'ботнет',
      '木马',
      '🦠 and 🦠',
      '\ud800',
      'x\udc00y',
      '\ud83e',
      'a\ud83e\ud9a0b',
    ];
    for (const text of samples) expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});
