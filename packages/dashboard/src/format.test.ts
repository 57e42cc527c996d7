import { describe, expect, it } from 'vitest';
import { indicatorsOf } from './format.js';

describe('indicatorsOf', () => {
  it('reads one indicator per line, comma, semicolon or space, defanged forms as pasted, each once', () => {
    expect(
      indicatorsOf('45.148.10.240\n hxxp://evil[.]example/x ,198.51.100[.]23;\r\n\n45.148.10.240\tbad.example'),
    ).toEqual(['45.148.10.240', 'hxxp://evil[.]example/x', '198.51.100[.]23', 'bad.example']);
    expect(indicatorsOf(' \n ,; ')).toEqual([]);
  });
});
