import { describe, expect, it } from 'vitest';
import { CaseSchema } from './case.js';
import { parseRecord } from './parse-record.js';

const documented = {
  title: 'Phishing campaign',
  description: 'Credential harvesting against finance',
  priority: 'critical',
  assignee: 'analyst@example.com',
  indicators: [
    { type: 'domain', value: 'login-example.com', source: 'feed_urls' },
    { type: 'ip', value: '198.51.100.7', source: 'siem' },
  ],
};

describe('CaseSchema', () => {
  it('accepts the documented case, keeping the precise indicator types', () => {
    expect(parseRecord(CaseSchema, documented, 'case')).toEqual({
      ...documented,
      indicators: [
        { type: 'domain', value: 'login-example.com', source: 'feed_urls' },
        { type: 'ipv4', value: '198.51.100.7', source: 'siem' },
      ],
    });
  });

  it('takes the priority in any case', () => {
    expect(parseRecord(CaseSchema, { ...documented, priority: 'High' }, 'case').priority).toBe('high');
  });

  it.each([
    [{ priority: 'urgent' }, 'priority: expected one of low, medium, high, critical, got "urgent"'],
    [{ priority: undefined }, 'priority: expected one of low, medium, high, critical'],
    [{ assignee: 'analyst' }, 'assignee: expected an e-mail address'],
    [{ title: ' ' }, 'title: required: a short title'],
    [{ indicators: [{ type: 'ip', value: 'evil.com', source: 's' }] }, 'indicators[0].value: not a valid ip'],
  ])('refuses %j, naming the field', (change, message) => {
    expect(() => parseRecord(CaseSchema, { ...documented, ...change }, 'case')).toThrow(message);
  });
});
