import type { Alert } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { ecsAlertDocument, ecsConfidence, ecsIndicator } from './ecs-alert.js';

const alert = (change: Partial<Alert> = {}): Alert => ({
  id: 'a-1',
  title: 'Suspicious domain',
  severity: 'medium',
  indicators: [],
  timestamp: '2026-01-02T03:04:05.000Z',
  deliveries: [],
  ...change,
});

describe('alerts as ECS documents', () => {
  it.each([
    [
      { type: 'ipv4', value: '192.0.2.1' },
      { type: 'ipv4-addr', ip: '192.0.2.1' },
    ],
    [
      { type: 'ipv6', value: '2001:db8::1' },
      { type: 'ipv6-addr', ip: '2001:db8::1' },
    ],
    [
      { type: 'domain', value: 'evil.com' },
      { type: 'domain-name', url: { domain: 'evil.com' } },
    ],
    [
      { type: 'url', value: 'http://evil.com/x?y=1' },
      { type: 'url', url: { full: 'http://evil.com/x?y=1', domain: 'evil.com' } },
    ],
    [
      { type: 'md5', value: 'a'.repeat(32) },
      { type: 'file', file: { hash: { md5: 'a'.repeat(32) } } },
    ],
    [
      { type: 'sha1', value: 'b'.repeat(40) },
      { type: 'file', file: { hash: { sha1: 'b'.repeat(40) } } },
    ],
    [
      { type: 'sha256', value: 'c'.repeat(64) },
      { type: 'file', file: { hash: { sha256: 'c'.repeat(64) } } },
    ],
    [
      { type: 'email', value: 'x@evil.com' },
      { type: 'email-addr', email: { address: 'x@evil.com' } },
    ],
  ] as const)('puts %j where ECS has it: %j', (indicator, expected) => {
    expect(ecsIndicator(indicator)).toEqual(expected);
  });

  it('maps confidence onto ECS’s None/Low/Medium/High (STIX 2.1 Appendix A bands)', () => {
    expect([0, 1, 29, 30, 69, 70, 100].map(ecsConfidence)).toEqual([
      'None',
      'Low',
      'Low',
      'Medium',
      'Medium',
      'High',
      'High',
    ]);
    expect(
      ecsIndicator({ type: 'ipv4', value: '192.0.2.1', confidence: 85, sources: ['feed_otx', 'feed_abuse'] }),
    ).toEqual({
      type: 'ipv4-addr',
      ip: '192.0.2.1',
      confidence: 'High',
      provider: ['feed_otx', 'feed_abuse'],
    });
  });

  it('one indicator is an object, several a list; related.* lists every value once', () => {
    const one = ecsAlertDocument(alert({ indicators: [{ type: 'ipv4', value: '192.0.2.1' }] }), new Date(0));
    expect((one.threat as { indicator: unknown }).indicator).toEqual({ type: 'ipv4-addr', ip: '192.0.2.1' });
    const many = ecsAlertDocument(
      alert({
        indicators: [
          { type: 'ipv4', value: '192.0.2.1' },
          { type: 'url', value: 'https://evil.com/a' },
          { type: 'domain', value: 'evil.com' },
          { type: 'sha256', value: 'c'.repeat(64) },
        ],
      }),
      new Date(0),
    );
    expect((many.threat as { indicator: unknown[] }).indicator).toHaveLength(4);
    expect(many.related).toEqual({ ip: ['192.0.2.1'], hosts: ['evil.com'], hash: ['c'.repeat(64)] });
    expect(ecsAlertDocument(alert(), new Date(0))).not.toHaveProperty('threat');
  });

  it('carries the event fields: kind alert, id, numeric severity, risk score, times, and the metadata', () => {
    const document = ecsAlertDocument(
      alert({ severity: 'high', riskScore: 7.2, description: 'why', metadata: { case: 'X-1' }, source: 'webhook' }),
      new Date('2026-01-02T04:00:00.000Z'),
    );
    expect(document).toMatchObject({
      '@timestamp': '2026-01-02T03:04:05.000Z',
      message: 'Suspicious domain: why',
      event: { kind: 'alert', id: 'a-1', severity: 7, risk_score: 7.2, created: '2026-01-02T04:00:00.000Z' },
      rule: { name: 'Suspicious domain' },
      threatlib: { alert: { severity: 'high', source: 'webhook', description: 'why' }, metadata: { case: 'X-1' } },
    });
    // Without a risk score, the severity's number stands in for it, so enrichment has a score for every alert.
    expect(ecsAlertDocument(alert({ severity: 'critical' }), new Date(0)).event).toMatchObject({
      severity: 10,
      risk_score: 10,
    });
  });
});
