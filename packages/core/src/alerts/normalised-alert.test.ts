import { describe, expect, it } from 'vitest';
import type { AlertInput } from './alert.js';
import { MemoryAlertStore, normaliseAlert } from './memory-alert-store.js';
import { isNormalisedAlert } from './normalised-alert.js';

const NOW = new Date('2026-03-01T12:00:00Z');

const input = (): AlertInput => ({
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95, sources: ['feed_otx'] }],
  timestamp: '2026-03-01T11:59:00.000Z',
  metadata: { ticket: { id: 7, tags: ['phishing'] } },
  deliveries: [{ integration: 'siem', status: 'delivered', attempts: 1, result: { accepted: 1, ids: ['x'] } }],
});

describe('isNormalisedAlert', () => {
  it('is true of what normaliseAlert and an alert store make, and false of the input and of copies', async () => {
    const given = input();
    const record = normaliseAlert(given, NOW);
    expect(isNormalisedAlert(record)).toBe(true);
    expect(isNormalisedAlert(await new MemoryAlertStore({ now: () => NOW }).add(input()))).toBe(true);

    expect(isNormalisedAlert(given)).toBe(false);
    expect(isNormalisedAlert(structuredClone(record))).toBe(false);
    expect(isNormalisedAlert({ ...record })).toBe(false);
    expect(isNormalisedAlert(JSON.parse(JSON.stringify(record)))).toBe(false);
    for (const value of [undefined, null, 'alert', 7]) expect(isNormalisedAlert(value)).toBe(false);
  });

  it('a branded record cannot be changed, at any depth, so it stays what validation made', () => {
    const record = normaliseAlert(input(), NOW);
    // Each part is there (so a TypeError below is the freeze's, not a missing object's).
    const indicator = record.indicators[0] as { value: string; sources: string[] };
    const ticket = (record.metadata as { ticket: { id: number } }).ticket;
    const result = record.deliveries[0]?.result as { accepted: number };
    expect([indicator.sources, ticket, result].every((part) => typeof part === 'object')).toBe(true);
    const changes: Array<() => void> = [
      () => Object.assign(record, { title: '' }),
      () => (record.indicators as unknown[]).push({ type: 'domain', value: 'not a domain' }),
      () => Object.assign(indicator, { value: 'not a domain' }),
      () => indicator.sources.push('x'),
      () => Object.assign(ticket, { id: 8 }),
      () => Object.assign(result, { accepted: 2 }),
      () => (record.deliveries as unknown[]).pop(),
    ];
    for (const change of changes) expect(change).toThrow(TypeError);
    expect(record).toMatchObject({
      title: 'Malicious domain detected',
      indicators: [{ type: 'domain', value: 'malicious-site.com', sources: ['feed_otx'] }],
      metadata: { ticket: { id: 7, tags: ['phishing'] } },
      deliveries: [{ result: { accepted: 1, ids: ['x'] } }],
    });
  });

  it("shares nothing with the input: the caller's objects are neither frozen nor read later", () => {
    const given = input();
    const record = normaliseAlert(given, NOW);
    const metadata = given.metadata as { ticket: { id: number; tags: string[] } };
    const result = given.deliveries?.[0]?.result as { accepted: number };
    expect(Object.isFrozen(given)).toBe(false);
    expect(Object.isFrozen(metadata.ticket)).toBe(false);
    expect(Object.isFrozen(result)).toBe(false);
    metadata.ticket.tags.push('changed');
    result.accepted = 99;
    expect(record.metadata).toEqual({ ticket: { id: 7, tags: ['phishing'] } });
    expect(record.deliveries[0]?.result).toEqual({ accepted: 1, ids: ['x'] });
  });

  it('keeps metadata as JSON carries it, as every store keeps it', () => {
    const record = normaliseAlert(
      { title: 't', severity: 'low', metadata: { at: new Date('2026-01-02T03:04:05.000Z'), gone: undefined } },
      NOW,
    );
    expect(record.metadata).toEqual({ at: '2026-01-02T03:04:05.000Z' });
    expect(isNormalisedAlert(record)).toBe(true);
  });

  it('leaves a record holding what JSON cannot carry unsealed (a BigInt in a delivery result)', () => {
    const record = normaliseAlert(
      {
        title: 't',
        severity: 'low',
        deliveries: [{ integration: 'siem', status: 'delivered', attempts: 1, result: { n: 1n } }],
      },
      NOW,
    );
    expect(record.deliveries[0]?.result).toEqual({ n: 1n });
    expect(isNormalisedAlert(record)).toBe(false);
    expect(Object.isFrozen(record)).toBe(false);
  });
});
