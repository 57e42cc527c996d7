import { MemoryAlertStore } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { alertStoreIndicators, type ThreatIndicator } from './threat-indicators.js';

async function collect(source: AsyncIterable<ThreatIndicator>): Promise<ThreatIndicator[]> {
  const out: ThreatIndicator[] = [];
  for await (const indicator of source) out.push(indicator);
  return out.sort((a, b) => (a.value < b.value ? -1 : 1));
}

describe('alertStoreIndicators', () => {
  it('takes each indicator once, with its latest confidence, the union of its sources and first and last seen', async () => {
    const store = new MemoryAlertStore();
    await store.add({
      title: 'first',
      severity: 'high',
      indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 95, sources: ['feed_otx'] }],
      timestamp: '2026-01-01T00:00:00Z',
    });
    await store.add({
      title: 'later, less sure',
      severity: 'medium',
      indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 60, source: 'feed_abuse' }],
      timestamp: '2026-01-02T00:00:00+02:00',
    });
    await store.add({
      title: 'a domain',
      severity: 'high',
      indicators: [{ type: 'domain', value: 'Evil.Example.COM', confidence: 85 }],
      timestamp: '2026-01-01T12:00:00Z',
    });
    const all = await collect(alertStoreIndicators(store).threatIndicators({ minConfidence: 0 }));
    expect(all).toEqual([
      {
        type: 'ipv4',
        value: '198.51.100.7',
        confidence: 60,
        sources: ['feed_abuse', 'feed_otx'],
        firstSeen: '2026-01-01T00:00:00.000Z',
        lastSeen: '2026-01-01T22:00:00.000Z',
      },
      {
        type: 'domain',
        value: 'evil.example.com',
        confidence: 85,
        sources: [],
        firstSeen: '2026-01-01T12:00:00.000Z',
        lastSeen: '2026-01-01T12:00:00.000Z',
      },
    ]);
    // The address's current confidence (60) is below 80: it is no longer a threat.
    const threats = await collect(alertStoreIndicators(store).threatIndicators({ minConfidence: 80 }));
    expect(threats.map((t) => t.value)).toEqual(['evil.example.com']);
  });

  it('reads every page of the store, and leaves out indicators never given a confidence', async () => {
    const store = new MemoryAlertStore();
    for (let i = 0; i < 1203; i++) {
      await store.add({
        title: `alert ${i}`,
        severity: 'high',
        indicators: [{ type: 'ip', value: `10.0.${Math.floor(i / 256)}.${i % 256}`, confidence: 90 }],
      });
    }
    await store.add({ title: 'no confidence', severity: 'high', indicators: [{ type: 'ip', value: '192.0.2.1' }] });
    const threats = await collect(alertStoreIndicators(() => store).threatIndicators({ minConfidence: 0 }));
    expect(threats).toHaveLength(1203);
    expect(threats.some((t) => t.value === '192.0.2.1')).toBe(false);
  });

  it('keeps a threat alert’s verdict and reads only alerts since a time when asked', async () => {
    const store = new MemoryAlertStore();
    await store.add({
      title: 'old',
      severity: 'high',
      indicators: [{ type: 'ip', value: '203.0.113.1', confidence: 90 }],
      timestamp: '2025-01-01T00:00:00Z',
    });
    await store.add({
      title: 'Suspicious ipv4',
      severity: 'high',
      indicators: [{ type: 'ip', value: '203.0.113.2', confidence: 90 }],
      timestamp: '2026-01-01T00:00:00Z',
      metadata: { verdict: 'suspicious' },
    });
    const recent = await collect(
      alertStoreIndicators(store).threatIndicators({ minConfidence: 50, since: new Date('2025-06-01T00:00:00Z') }),
    );
    expect(recent).toMatchObject([{ value: '203.0.113.2', verdict: 'suspicious' }]);
  });
});
