import type { Case } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import type { KibanaOptions } from './elastic-options.js';
import { codeSpan, KIBANA_CASE_LIMITS, kibanaCaseBody, kibanaReason } from './kibana-case.js';

const kibana: KibanaOptions = { enabled: true, port: 5601, owner: 'securitySolution', tags: [], assignees: {} };
const input = (change: Partial<Case> = {}): Case => ({ title: 'A case', priority: 'high', indicators: [], ...change });

describe('cases as Kibana Cases API bodies', () => {
  it('stays within Kibana’s limits however many indicators a case has, saying how many were left out', () => {
    const indicators = Array.from({ length: 2_000 }, (_, i) => ({
      type: 'domain' as const,
      value: `host-${i}-${'x'.repeat(40)}.com`,
      source: 'feed_urls',
    }));
    const body = kibanaCaseBody(input({ indicators, description: 'd'.repeat(20_000) }), kibana);
    expect(body.tags).toHaveLength(KIBANA_CASE_LIMITS.tags);
    expect(body.description.length).toBeLessThanOrEqual(KIBANA_CASE_LIMITS.description);
    expect(body.description).toMatch(/_\(\d+ more not listed\)_/);
    expect(body.description.endsWith('_Opened by threatlib._')).toBe(true);
  });

  it('skips a tag longer than 256 characters and repeats none', () => {
    const long = `https://evil.com/${'p'.repeat(300)}`;
    const body = kibanaCaseBody(
      input({
        indicators: [
          { type: 'url', value: long },
          { type: 'domain', value: 'evil.com' },
          { type: 'domain', value: 'evil.com' },
        ],
      }),
      { ...kibana, tags: ['threatlib', 'soc'] },
    );
    expect(body.tags).toEqual(['threatlib', 'soc', 'ioc:evil.com']);
    expect(body.description).toContain(long);
  });

  it('writes values as code spans and text with Markdown escaped, so an analyst reads them as sent', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
    const body = kibanaCaseBody(
      input({ assignee: 'a_b@example.com', indicators: [{ type: 'domain', value: 'evil.com', source: '*bold*' }] }),
      kibana,
    );
    expect(body.description).toContain('- domain `evil.com` (source \\*bold\\*)');
    expect(body.description).toContain('Assignee: a\\_b@example\\.com');
  });

  it('reads Kibana’s Boom message, or the start of a body that is not Kibana’s', () => {
    expect(kibanaReason('{"statusCode":400,"error":"Bad Request","message":"nope"}')).toBe('nope');
    expect(kibanaReason('Kibana server is not ready yet')).toBe('Kibana server is not ready yet');
    expect(kibanaReason('')).toBe('(empty answer)');
  });
});
