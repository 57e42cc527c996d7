import { describe, expect, it } from 'vitest';
import { facilityCode, formatRfc5424, octetCountingFrame, syslogSeverity } from './rfc5424.js';

describe('formatRfc5424', () => {
  const base = {
    facility: 16,
    severity: 4,
    timestamp: new Date('2026-01-02T03:04:05.678Z'),
    hostname: 'web-1.example',
    appName: 'threatlib',
    procId: 4242,
    message: '{"msg":"slow"}',
  };

  it('writes PRI, version 1, the header fields and the message', () => {
    expect(formatRfc5424({ ...base, msgId: 'feed' })).toBe(
      '<132>1 2026-01-02T03:04:05.678Z web-1.example threatlib 4242 feed - {"msg":"slow"}',
    );
  });

  it('writes NILVALUE for missing fields, and makes header fields printable ASCII of bounded length', () => {
    const line = formatRfc5424({
      ...base,
      hostname: '',
      appName: 'my app\u00e9'.padEnd(60, 'x'),
      msgId: undefined,
    });
    const [, , hostname, appName, , msgId, sd] = line.split(' ');
    expect(hostname).toBe('-');
    expect(appName).toMatch(/^my_app_x+$/);
    expect(appName).toHaveLength(48);
    expect(msgId).toBe('-');
    expect(sd).toBe('-');
  });

  it('computes PRI as facility * 8 + severity', () => {
    expect(formatRfc5424({ ...base, facility: facilityCode('user'), severity: syslogSeverity(30) })).toMatch(/^<14>1 /);
    expect(formatRfc5424({ ...base, facility: facilityCode('local7'), severity: syslogSeverity(60) })).toMatch(
      /^<186>1 /,
    );
    expect(formatRfc5424({ ...base, facility: 0, severity: 0 })).toMatch(/^<0>1 /);
  });
});

describe('syslogSeverity', () => {
  it.each([
    [10, 7],
    [20, 7],
    [30, 6],
    [40, 4],
    [50, 3],
    [60, 2],
  ])('pino level %i is severity %i', (level, severity) => {
    expect(syslogSeverity(level)).toBe(severity);
  });
});

describe('octetCountingFrame', () => {
  it('prefixes the length in bytes, not characters', () => {
    expect(octetCountingFrame('<14>1 - - - - - - hi')).toBe('20 <14>1 - - - - - - hi');
    expect(octetCountingFrame('é')).toBe('2 é');
  });
});
