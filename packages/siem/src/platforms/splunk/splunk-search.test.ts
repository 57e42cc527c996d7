import { describe, expect, it } from 'vitest';
import {
  enrichmentSearch,
  isoFromEpoch,
  managementReason,
  readExport,
  regexLiteral,
  splString,
} from './splunk-search.js';

describe('Splunk search text', () => {
  it('quotes SPL strings with backslash escapes for quotes and backslashes', () => {
    expect(splString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('matches a value literally in the regex of where match()', () => {
    const regex = new RegExp(regexLiteral('a.b*c?(d)[e]{f}|g^$\\'));
    expect(regex.test('xx a.b*c?(d)[e]{f}|g^$\\ yy')).toBe(true);
    expect(regex.test('aXbbbc')).toBe(false);
  });

  it('builds one search over the indexes, reduced by stats', () => {
    expect(enrichmentSearch({ type: 'domain', value: 'evil-login.com' }, ['main'])).toBe(
      'search (index="main") "evil-login.com" | where match(_raw, "evil-login\\\\.com") | spath output=threatlib_risk path=riskScore | stats min(_time) AS firstSeen max(_time) AS lastSeen count AS associatedEvents max(threatlib_risk) AS riskScore',
    );
  });
});

describe('Splunk search answers', () => {
  it('reads export lines, skipping previews, and collects FATAL and ERROR messages', () => {
    const body = [
      '{"preview":true,"result":{"count":"1"}}',
      '{"preview":false,"offset":0,"lastrow":true,"result":{"count":"2"}}',
      '{"messages":[{"type":"WARN","text":"w"},{"type":"ERROR","text":"e"}]}',
    ].join('\n');
    expect(readExport(body)).toEqual({ rows: [{ count: '2' }], errors: ['e'] });
  });

  it('reads Splunk’s reason from a JSON or XML error answer', () => {
    expect(managementReason('{"messages":[{"type":"WARN","text":"call not properly authenticated"}]}')).toBe(
      'call not properly authenticated',
    );
    expect(managementReason('<response><messages><msg type="ERROR">a &amp; b</msg></messages></response>')).toBe(
      'a & b',
    );
    expect(managementReason('<html>proxy</html>')).toBeUndefined();
  });

  it('turns Splunk epoch seconds into ISO 8601, keeping milliseconds', () => {
    expect(isoFromEpoch('1700000000.123')).toBe('2023-11-14T22:13:20.123Z');
    expect(isoFromEpoch(undefined)).toBeUndefined();
    expect(isoFromEpoch('soon')).toBeUndefined();
  });
});
