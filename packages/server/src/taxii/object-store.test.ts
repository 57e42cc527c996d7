import { describe, expect, it } from 'vitest';
import { TaxiiObjectStore } from './object-store.js';
import { parseTaxiiQuery } from './taxii-query.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const ID = (n: number) => `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const object = (n: number, modified: string, extra: object = {}) => ({
  type: 'indicator',
  spec_version: '2.1',
  id: ID(n),
  created: '2026-01-01T00:00:00.000Z',
  modified,
  ...extra,
});
const query = (raw: Record<string, string> = {}, defaultVersion: 'last' | 'all' = 'last') =>
  parseTaxiiQuery(raw, ['id', 'type', 'version', 'spec_version'], {
    defaultLimit: 100,
    maxLimit: 1000,
    defaultVersion,
  });
const ids = (records: readonly { id: string; version: string }[]) =>
  records.map((r) => `${r.id.slice(-2)}@${r.version.slice(5, 10)}`);

describe('the TAXII object store', () => {
  it('keeps every version with a unique, increasing date_added, and a repeated version once', () => {
    const store = new TaxiiObjectStore({ maxObjects: 100, now: () => T0 });
    const first = store.add(object(1, '2026-01-01T00:00:00.000Z'));
    const second = store.add(object(1, '2026-01-02T00:00:00.000Z'));
    expect(store.add(object(1, '2026-01-01T00:00:00.000Z'))).toMatchObject({ ok: true, added: false });
    expect(first.ok && second.ok && second.stored.dateAdded - first.stored.dateAdded).toBe(1);
    expect(store.size).toBe(2);
    expect(store.versionsOf(ID(1)).map((r) => r.version)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
    // A cyber-observable has no created or modified: one version, whose version is its date_added.
    const sco = store.add({
      type: 'ipv4-addr',
      id: 'ipv4-addr--00000000-0000-4000-8000-000000000001',
      value: '1.2.3.4',
    });
    expect(sco).toMatchObject({ ok: true, stored: { specVersion: '2.1', version: '2026-03-01T00:00:00.000002Z' } });
  });

  it('refuses what is not a STIX object, saying why', () => {
    const store = new TaxiiObjectStore({ maxObjects: 100, now: () => T0 });
    expect(store.add([1])).toMatchObject({ ok: false, reason: /not a STIX object/ });
    expect(store.add({ type: 'Indicator', id: ID(1) })).toMatchObject({ ok: false, reason: /no valid type/ });
    expect(store.add({ type: 'malware', id: ID(1) })).toMatchObject({
      ok: false,
      id: ID(1),
      reason: /malware--<UUID>/,
    });
    expect(store.add(object(1, 'yesterday'))).toMatchObject({
      ok: false,
      reason: /modified time that is not a STIX timestamp/,
    });
    expect(store.add(object(1, '2026-01-01T00:00:00Z', { spec_version: 2.1 }))).toMatchObject({
      ok: false,
      reason: /spec_version/,
    });
  });

  it('selects by id, type, version (first, last, all, exact) and spec_version, in the order added', () => {
    const store = new TaxiiObjectStore({ maxObjects: 100, now: () => T0 });
    store.add(object(1, '2026-01-02T00:00:00.000Z'));
    store.add(object(2, '2026-01-01T00:00:00.000Z'));
    store.add(object(1, '2026-01-01T00:00:00.000Z')); // an older version, added later
    store.add({
      ...object(3, '2026-01-05T00:00:00.000Z'),
      type: 'malware',
      id: 'malware--00000000-0000-4000-8000-000000000003',
    });
    store.add({ ...object(2, '2026-01-03T00:00:00.000Z'), spec_version: '2.0' });
    expect(ids(store.page(query(), undefined, { maxBytes: 1e6 }).records)).toEqual([
      '01@01-02',
      '02@01-01',
      '03@01-05',
    ]);
    expect(ids(store.page(query({ 'match[version]': 'first' }), undefined, { maxBytes: 1e6 }).records)).toEqual([
      '02@01-01',
      '01@01-01',
      '03@01-05',
    ]);
    expect(store.page(query({ 'match[version]': 'all' }), undefined, { maxBytes: 1e6 }).records).toHaveLength(4);
    expect(
      ids(store.page(query({ 'match[version]': '2026-01-01T00:00:00Z' }), undefined, { maxBytes: 1e6 }).records),
    ).toEqual(['02@01-01', '01@01-01']);
    expect(ids(store.page(query({ 'match[type]': 'malware' }), undefined, { maxBytes: 1e6 }).records)).toEqual([
      '03@01-05',
    ]);
    expect(ids(store.page(query({ 'match[id]': `${ID(2)},${ID(9)}` }), undefined, { maxBytes: 1e6 }).records)).toEqual([
      '02@01-01',
    ]);
    expect(ids(store.page(query({ 'match[spec_version]': '2.0' }), undefined, { maxBytes: 1e6 }).records)).toEqual([
      '02@01-03',
    ]);
  });

  it('pages from a position: limit, more, added_after, and a byte budget that still gives one record', () => {
    let now = T0;
    const store = new TaxiiObjectStore({ maxObjects: 100, now: () => now });
    for (let n = 1; n <= 5; n++) {
      store.add(object(n, '2026-01-01T00:00:00.000Z'));
      now += 1000;
    }
    const first = store.page(query({ limit: '2' }), undefined, { maxBytes: 1e6 });
    expect(first.records.map((r) => r.id)).toEqual([ID(1), ID(2)]);
    expect(first.more).toBe(true);
    const rest = store.page(query({ limit: '10' }), first.records[1]?.dateAdded, { maxBytes: 1e6 });
    expect(rest).toMatchObject({ more: false });
    expect(rest.records.map((r) => r.id)).toEqual([ID(3), ID(4), ID(5)]);
    expect(
      store.page(query({ added_after: '2026-03-01T00:00:02Z' }), undefined, { maxBytes: 1e6 }).records,
    ).toHaveLength(2);
    const tight = store.page(query(), undefined, { maxBytes: 10 });
    expect(tight).toMatchObject({ more: true });
    expect(tight.records).toHaveLength(1);
  });

  it('deletes the versions a query selects, and drops the oldest tenth past maxObjects', () => {
    const store = new TaxiiObjectStore({ maxObjects: 10, now: () => T0 });
    store.add(object(1, '2026-01-01T00:00:00.000Z'));
    store.add(object(1, '2026-01-02T00:00:00.000Z'));
    expect(store.delete(ID(1), query({ 'match[version]': 'last' }, 'all')).map((r) => r.version)).toEqual([
      '2026-01-02T00:00:00.000Z',
    ]);
    expect(store.delete(ID(1), query({}, 'all'))).toHaveLength(1);
    expect(store.has(ID(1))).toBe(false);
    for (let n = 1; n <= 11; n++) store.add(object(n, '2026-01-01T00:00:00.000Z'));
    expect(store.size).toBe(10);
    expect(store.has(ID(1))).toBe(false);
    expect(store.has(ID(11))).toBe(true);
  });
});
