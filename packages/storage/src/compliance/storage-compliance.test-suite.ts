import { ValidationError } from '@threatlib/core';
import { alertStoreCompliance, type ManualClock } from '@threatlib/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  CampaignReport,
  IndicatorSighting,
  StoredThreatInput,
  ThreatStorage,
} from '../contract/threat-storage.js';

/** One back end under test: a fresh, empty store and what the suite needs to look behind it. */
export interface StorageComplianceTarget {
  /** A fresh, empty store on the real server (started or not). */
  storage: ThreatStorage;
  /** The store's clock, at {@link COMPLIANCE_EPOCH}: the suite moves it to make records expire. */
  clock: ManualClock;
  /** Requests sent to the server since the target was made (a command monitor, a transport hook). */
  requestsSent(): number;
  /** The back end's own query of the threat records with a filter (the document store's `query('threats', f)`). */
  query(filter: unknown): Promise<unknown>;
  /** How many threat records the server holds now, expired ones included. */
  storedThreatCount(): Promise<number>;
  /** Another store on the same data, as a restarted process would make it (on the same clock). */
  reopen(): Promise<ThreatStorage>;
  /** Stops every store the target made and removes their data (database, indices). */
  dispose(): Promise<void>;
}

/** A filter the back end's query must refuse, and the path its `ValidationError` names. */
export interface RefusedFilter {
  filter: unknown;
  path: string;
}

/** Filters every back end refuses: code run on the server, expressions, operators not on the allowlist. */
export const REFUSED_FILTERS: readonly RefusedFilter[] = [
  { filter: { $where: 'sleep(100)' }, path: '$where' },
  {
    filter: { 'results.confidence': { $function: { body: 'function() { return true }', args: [], lang: 'js' } } },
    path: 'results.confidence.$function',
  },
  { filter: { $expr: { $gt: ['$results.confidence', 50] } }, path: '$expr' },
  { filter: { 'results.confidence': { $accumulator: {} } }, path: 'results.confidence.$accumulator' },
  { filter: { $or: [{ indicator: 'a' }, { $where: 'true' }] }, path: '$or[1].$where' },
  { filter: { indicator: { $regex: '^(a+)+$' } }, path: 'indicator.$regex' },
  // A key naming the prototype: copied by assignment, it made the filter {}, which matches every record.
  { filter: JSON.parse('{"__proto__": {"severity": "high"}}'), path: '__proto__' },
  { filter: JSON.parse('{"$or": [{"__proto__": {"severity": "high"}}]}'), path: '$or[0].__proto__' },
  { filter: { 'results.constructor.prototype': 1 }, path: 'results.constructor.prototype' },
];

/** Options of {@link storageCompliance}. */
export interface StorageComplianceOptions {
  /** Filters the back end's query refuses (default {@link REFUSED_FILTERS}). */
  refusedFilters?: readonly RefusedFilter[];
}

/** The suite's clock starts here: 2026-03-01T12:00:00Z. */
export const COMPLIANCE_EPOCH = Date.parse('2026-03-01T12:00:00Z');
const HOUR = 3_600_000;

/**
 * The storage compliance suite: what every `ThreatStorage` back end does on its real server, registered under the
 * caller's `describe`. Threat records (documented shape, ids, newest first, a retried batch not doubled), expiry
 * (never returned once expired, deleted by a sweep), indicator history (first and last seen, times seen, latest
 * verdict, whatever order sightings arrive in), refused filters (nothing sent) and core's alert-store contract on the
 * back end's `alerts`, kept across a reopened store.
 *
 * @example
 * ```ts
 * describeWithFerretDB('DocumentStoreStorage', () => storageCompliance(makeDocumentStoreTarget));
 * ```
 */
export function storageCompliance(
  makeTarget: () => Promise<StorageComplianceTarget>,
  options: StorageComplianceOptions = {},
): void {
  const targets: StorageComplianceTarget[] = [];
  const fresh = async () => {
    const target = await makeTarget();
    targets.push(target);
    return target;
  };
  afterEach(async () => {
    await Promise.all(targets.splice(0).map((target) => target.dispose()));
  });

  const at = (offsetMs: number) => new Date(COMPLIANCE_EPOCH + offsetMs);
  const threat = (indicator: string, confidence: number, scanDate: Date, ttl = 86_400, id?: string) =>
    ({
      ...(id === undefined ? {} : { id }),
      indicator,
      results: { indicator, confidence, verdict: confidence >= 80 ? 'malicious' : 'clean', riskScore: 5 },
      scanDate,
      ttl,
    }) satisfies StoredThreatInput;

  describe('threat records', () => {
    it('stores documented records and gives an indicator’s back newest first, each expiring ttl after its scan', async () => {
      const { storage } = await fresh();
      await storage.storeThreats([
        threat('a.example', 90, at(-2 * HOUR)),
        threat('b.example', 10, at(-HOUR)),
        threat('a.example', 85, at(-HOUR), 7_200),
      ]);
      const records = await storage.threatsOf('a.example');
      expect(records).toEqual([
        {
          id: expect.any(String),
          indicator: 'a.example',
          results: { indicator: 'a.example', confidence: 85, verdict: 'malicious', riskScore: 5 },
          scanDate: at(-HOUR),
          ttl: 7_200,
          expiresAt: at(HOUR),
        },
        expect.objectContaining({ indicator: 'a.example', scanDate: at(-2 * HOUR), expiresAt: at(22 * HOUR) }),
      ]);
      expect(new Set(records.map((r) => r.id)).size).toBe(2);
      expect(await storage.threatsOf('c.example')).toEqual([]);
    });

    it('takes ISO 8601 strings for scanDate', async () => {
      const { storage } = await fresh();
      await storage.storeThreats([{ ...threat('a.example', 90, at(0)), scanDate: '2026-03-01T13:00:00+01:00' }]);
      expect((await storage.threatsOf('a.example'))[0]?.scanDate).toEqual(at(0));
    });

    it('a batch stored again under the same ids is not stored twice (a retried write)', async () => {
      const target = await fresh();
      const batch = [threat('a.example', 90, at(0), 3_600, 'r-1'), threat('b.example', 20, at(0), 3_600, 'r-2')];
      await target.storage.storeThreats(batch);
      await target.storage.storeThreats([...batch, threat('c.example', 50, at(0), 3_600, 'r-3')]);
      expect(await target.storedThreatCount()).toBe(3);
      expect((await target.storage.threatsOf('a.example')).map((r) => r.id)).toEqual(['r-1']);
    });

    it('refuses a batch with an invalid record before sending anything, naming the record and field', async () => {
      const target = await fresh();
      await target.storage.start();
      const sent = target.requestsSent();
      const error = await target.storage
        .storeThreats([threat('a.example', 90, at(0)), { indicator: '', results: {}, scanDate: 'later', ttl: -1 }])
        .catch((e: unknown) => e);
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/^Invalid threat record \[1\]: indicator: .*; scanDate: .*; ttl: /);
      expect(target.requestsSent()).toBe(sent);
      expect(await target.storedThreatCount()).toBe(0);
    });
  });

  describe('expiry', () => {
    it('never returns a record once it has expired; a sweep deletes exactly the expired ones', async () => {
      const target = await fresh();
      const { storage, clock } = target;
      await storage.storeThreats([
        threat('a.example', 90, at(-2 * HOUR), 3_600),
        threat('a.example', 91, at(-30 * 60_000), 3_600),
        threat('b.example', 92, at(0), 86_400),
      ]);
      // The first expired an hour ago: not returned, though the server holds it until a sweep.
      expect((await storage.threatsOf('a.example')).map((r) => r.results.confidence)).toEqual([91]);
      expect(await target.storedThreatCount()).toBe(3);
      expect(await storage.sweepExpired()).toBe(1);
      expect(await target.storedThreatCount()).toBe(2);

      // An hour on, the second has expired as well (at 12:30). A back end's own sweeps may run as the clock moves.
      await clock.advance(HOUR);
      expect(await storage.threatsOf('a.example')).toEqual([]);
      await storage.sweepExpired();
      expect(await target.storedThreatCount()).toBe(1);
      expect((await storage.threatsOf('b.example')).map((r) => r.indicator)).toEqual(['b.example']);
    });
  });

  describe('indicator history', () => {
    const sighting = (indicator: string, minutes: number, verdict: string, confidence: number): IndicatorSighting => ({
      indicator,
      type: 'domain',
      seenAt: at(minutes * 60_000),
      verdict,
      confidence,
      riskScore: Math.max(1, Math.round(confidence / 10)),
    });

    it('keeps first and last seen, times seen and the latest verdict, whatever order sightings arrive in', async () => {
      const { storage } = await fresh();
      await storage.recordSightings([
        sighting('a.example', 10, 'suspicious', 60),
        sighting('b.example', 0, 'clean', 0),
      ]);
      // A later batch carries an older sighting (a retried write) and the newest.
      await storage.recordSightings([
        sighting('a.example', 30, 'malicious', 95),
        sighting('a.example', -20, 'clean', 5),
        sighting('a.example', 20, 'suspicious', 70),
      ]);
      expect(await storage.indicatorHistory('a.example')).toEqual({
        indicator: 'a.example',
        type: 'domain',
        firstSeen: at(-20 * 60_000),
        lastSeen: at(30 * 60_000),
        timesSeen: 4,
        lastVerdict: 'malicious',
        lastConfidence: 95,
        lastRiskScore: 10,
      });
      expect(await storage.indicatorHistory('b.example')).toMatchObject({ timesSeen: 1, lastVerdict: 'clean' });
      expect(await storage.indicatorHistory('never.example')).toBeUndefined();
    });

    it('concurrent calls about the same new indicator make one history, counting every sighting', async () => {
      const { storage } = await fresh();
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => storage.recordSightings([sighting('new.example', i, 'clean', i)])),
      );
      expect(await storage.indicatorHistory('new.example')).toMatchObject({
        timesSeen: 8,
        firstSeen: at(0),
        lastSeen: at(7 * 60_000),
        lastConfidence: 7,
      });
    });

    it('refuses a sighting that is not one, naming the field', async () => {
      const { storage } = await fresh();
      await expect(
        storage.recordSightings([{ ...sighting('a.example', 0, 'clean', 0), seenAt: 'yesterday' as never }]),
      ).rejects.toThrow(/^Invalid indicator sightings: \[0\]\.seenAt: /);
    });
  });

  describe('campaigns', () => {
    const report = (status: 'formed' | 'grown', indicators: string[], from: number, to: number, sources: string[]) =>
      ({
        campaign: 'cmp_9Qb3yJ0tq2XvE1kP4sLmZw',
        status,
        sharedBy: { kind: 'malwareFamily', value: 'Emotet' },
        indicators,
        indicatorCount: indicators.length,
        firstSeen: at(from * HOUR).toISOString(),
        lastSeen: at(to * HOUR),
        sources,
      }) satisfies CampaignReport;
    /** The back end's campaign methods, or a skip for a back end that does not keep campaigns yet. */
    const campaignsOf = (storage: ThreatStorage, skip: (note: string) => never) => {
      const { recordCampaigns, campaign } = storage;
      if (recordCampaigns === undefined || campaign === undefined) return skip('this back end keeps no campaigns');
      return { record: recordCampaigns.bind(storage), get: campaign.bind(storage) };
    };

    it('folds every report of a campaign into one record that only grows, kept ttl after it was last seen', async (ctx) => {
      const target = await fresh();
      const campaigns = campaignsOf(target.storage, ctx.skip);
      const formed = report('formed', ['a.example', 'b.example', 'c.example'], -3, -1, ['feed_otx']);
      await campaigns.record([formed], { ttl: 86_400 });
      const grown = report('grown', ['b.example', 'c.example', 'd.example'], -2, 0, ['feed_abuse', 'feed_otx']);
      await campaigns.record([grown], { ttl: 86_400 });
      const expected = {
        id: formed.campaign,
        campaign: formed.campaign,
        status: 'grown',
        sharedBy: { kind: 'malwareFamily', value: 'Emotet' },
        indicators: ['a.example', 'b.example', 'c.example', 'd.example'],
        indicatorCount: 3,
        firstSeen: at(-3 * HOUR),
        lastSeen: at(0),
        sources: ['feed_otx', 'feed_abuse'],
        expiresAt: at(24 * HOUR),
      };
      expect(await campaigns.get(formed.campaign)).toEqual(expected);
      // The first report written again (a retried batch) changes nothing: not the status, not the dates.
      await campaigns.record([formed], { ttl: 86_400 });
      expect(await campaigns.get(formed.campaign)).toEqual(expected);
      expect(await campaigns.get('cmp_unknown')).toBeUndefined();

      // A day after it was last seen it is no longer returned.
      await target.clock.advance(24 * HOUR);
      expect(await campaigns.get(formed.campaign)).toBeUndefined();
    });

    it('refuses a report that is not one, naming the report and field, before sending anything', async (ctx) => {
      const target = await fresh();
      const campaigns = campaignsOf(target.storage, ctx.skip);
      await target.storage.start();
      const sent = target.requestsSent();
      const error = await campaigns
        .record(
          [
            report('formed', ['a.example'], 0, 0, []),
            {
              ...report('formed', ['a.example'], 0, 0, []),
              campaign: '',
              lastSeen: 'tomorrow',
              status: 'new' as never,
            },
          ],
          { ttl: 60 },
        )
        .catch((e: unknown) => e);
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^Invalid campaign reports: \[1\]\.campaign: .*\[1\]\.status: .*\[1\]\.lastSeen: /,
      );
      expect(target.requestsSent()).toBe(sent);
    });
  });

  describe('refused filters', () => {
    it.each((options.refusedFilters ?? REFUSED_FILTERS).map((refused) => [refused.path, refused]))(
      '%s is refused naming where it is, and nothing is sent',
      async (_path, refused) => {
        const target = await fresh();
        await target.storage.start();
        const sent = target.requestsSent();
        const error = await target.query(refused.filter).catch((e: unknown) => e);
        expect(ValidationError.isInstance(error)).toBe(true);
        expect((error as ValidationError).issues[0]?.path).toBe(refused.path);
        expect(target.requestsSent()).toBe(sent);
      },
    );
  });

  describe('alerts (core’s alert-store contract)', () => {
    alertStoreCompliance(async () => (await fresh()).storage.alerts);

    it('alerts and their deliveries are there for a store reopened on the same data', async () => {
      const target = await fresh();
      const alert = await target.storage.alerts.add({
        title: 'kept',
        severity: 'high',
        timestamp: at(0).toISOString(),
      });
      const deliveries = [{ integration: 'siem', status: 'pending' as const, attempts: 0 }];
      await target.storage.alerts.updateDeliveries(alert.id, deliveries);
      await target.storage.stop();
      const reopened = await target.reopen();
      expect(await reopened.alerts.get(alert.id)).toEqual({ ...alert, deliveries });
      expect((await reopened.alerts.list({ minSeverity: 'high' })).items.map((a) => a.id)).toEqual([alert.id]);
    });

    it('lists newest first in pages, filtered by severity and time', async () => {
      const { storage } = await fresh();
      for (const [i, severity] of (['low', 'high', 'critical', 'medium', 'high'] as const).entries()) {
        await storage.alerts.add({ title: `a${i}`, severity, timestamp: at(i * 60_000).toISOString() });
      }
      const first = await storage.alerts.list({ limit: 2 });
      expect(first.items.map((a) => a.title)).toEqual(['a4', 'a3']);
      const second = await storage.alerts.list({ limit: 2, cursor: first.nextCursor as string });
      expect(second.items.map((a) => a.title)).toEqual(['a2', 'a1']);
      const third = await storage.alerts.list({ limit: 2, cursor: second.nextCursor as string });
      expect(third).toEqual({ items: [expect.objectContaining({ title: 'a0' })] });
      expect((await storage.alerts.list({ minSeverity: 'high' })).items.map((a) => a.title)).toEqual([
        'a4',
        'a2',
        'a1',
      ]);
      expect((await storage.alerts.list({ since: at(3 * 60_000) })).items.map((a) => a.title)).toEqual(['a4', 'a3']);
      await expect(storage.alerts.list({ cursor: 'nope' })).rejects.toThrow(/cursor: not a cursor this store issued/);
      await expect(storage.alerts.add({ id: first.items[0]?.id, title: 'again', severity: 'low' })).rejects.toThrow(
        /id: an alert with id .* is already stored/,
      );
    });
  });
}
