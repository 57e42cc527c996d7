import { describe, expect, it } from 'vitest';
import type { CampaignObservation } from './campaign.js';
import { CampaignTracker } from './campaign-tracker.js';

const T0 = Date.parse('2026-05-01T00:00:00Z');
const HOUR = 3_600_000;

function threat(indicator: string, at: number, links: Partial<CampaignObservation> = {}): CampaignObservation {
  return { indicator, at, sources: ['feed_otx'], malwareFamilies: [], tags: [], references: [], ...links };
}

describe('CampaignTracker', () => {
  it('reports a campaign when the third distinct indicator shares a malware family, and again when it grows', () => {
    const tracker = new CampaignTracker();
    const emotet = { malwareFamilies: ['Emotet'] };
    expect(tracker.observe(threat('a.example', T0, emotet))).toEqual([]);
    expect(tracker.observe(threat('b.example', T0 + HOUR, { ...emotet, sources: ['feed_abuse'] }))).toEqual([]);
    // The same indicator again is not a new member.
    expect(tracker.observe(threat('b.example', T0 + 2 * HOUR, emotet))).toEqual([]);
    const [formed, ...others] = tracker.observe(threat('c.example', T0 + 3 * HOUR, { malwareFamilies: ['emotet'] }));
    expect(others).toEqual([]);
    expect(formed).toEqual({
      campaign: expect.stringMatching(/^cmp_[A-Za-z0-9_-]{22}$/),
      status: 'formed',
      sharedBy: { kind: 'malwareFamily', value: 'Emotet' },
      indicators: ['a.example', 'b.example', 'c.example'],
      indicatorCount: 3,
      firstSeen: new Date(T0).toISOString(),
      lastSeen: new Date(T0 + 3 * HOUR).toISOString(),
      sources: ['feed_abuse', 'feed_otx'],
    });
    expect(tracker.observe(threat('c.example', T0 + 4 * HOUR, emotet))).toEqual([]);
    const [grown] = tracker.observe(threat('d.example', T0 + 5 * HOUR, emotet));
    expect(grown).toMatchObject({ campaign: formed?.campaign, status: 'grown', indicatorCount: 4 });
    expect(grown?.indicators).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
  });

  it('links by tag and by referenced pulse or report, not counting a tag that names the family twice', () => {
    const tracker = new CampaignTracker({ minIndicators: 2 });
    const pulse = 'https://otx.alienvault.com/pulse/64f0c0ffee';
    tracker.observe(threat('198.51.100.1', T0, { tags: ['Qakbot', 'phishing'], malwareFamilies: ['qakbot'] }));
    const events = tracker.observe(
      threat('198.51.100.2', T0 + HOUR, { tags: ['PHISHING'], malwareFamilies: ['QakBot'], references: [pulse] }),
    );
    expect(events.map((event) => event.sharedBy)).toEqual([
      { kind: 'malwareFamily', value: 'qakbot' },
      { kind: 'tag', value: 'phishing' },
    ]);
    const byReport = tracker.observe(threat('198.51.100.3', T0 + 2 * HOUR, { references: [pulse] }));
    expect(byReport).toEqual([
      expect.objectContaining({ status: 'formed', sharedBy: { kind: 'reference', value: pulse }, indicatorCount: 2 }),
    ]);
  });

  it('counts only indicators seen within the window; a campaign whose indicators aged out ends, and a new one gets a new id', () => {
    const tracker = new CampaignTracker({ windowMs: 24 * HOUR });
    const mirai = { malwareFamilies: ['Mirai'] };
    tracker.observe(threat('10.0.0.1', T0, mirai));
    tracker.observe(threat('10.0.0.2', T0 + 2 * HOUR, mirai));
    // 10.0.0.1 is 25 hours old by now: two indicators within the window, no campaign.
    expect(tracker.observe(threat('10.0.0.3', T0 + 25 * HOUR, mirai))).toEqual([]);
    const [first] = tracker.observe(threat('10.0.0.4', T0 + 25 * HOUR, mirai));
    expect(first?.indicators).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4']);
    // Two days later every one of them has aged out: the same family forms a new campaign.
    tracker.observe(threat('10.0.1.1', T0 + 80 * HOUR, mirai));
    tracker.observe(threat('10.0.1.2', T0 + 80 * HOUR, mirai));
    const [second] = tracker.observe(threat('10.0.1.3', T0 + 80 * HOUR, mirai));
    expect(second).toMatchObject({ status: 'formed', indicatorCount: 3 });
    expect(second?.campaign).not.toBe(first?.campaign);
  });

  it('keeps at most maxLinks links, forgetting the least recently seen', () => {
    const tracker = new CampaignTracker({ maxLinks: 2, minIndicators: 2 });
    tracker.observe(threat('a', T0, { tags: ['one'] }));
    tracker.observe(threat('b', T0, { tags: ['two'] }));
    tracker.observe(threat('c', T0, { tags: ['three'] }));
    // "one" was forgotten: a second indicator tagged "one" forms nothing; "three" still remembers c.
    expect(tracker.observe(threat('d', T0, { tags: ['one'] }))).toEqual([]);
    expect(tracker.observe(threat('e', T0, { tags: ['three'] }))).toHaveLength(1);
  });

  it('refuses options that cannot make a campaign', () => {
    expect(() => new CampaignTracker({ minIndicators: 1 })).toThrow(/at least 2/);
    expect(() => new CampaignTracker({ windowMs: 0 })).toThrow(/positive/);
  });
});
