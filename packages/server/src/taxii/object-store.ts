import { parseStixTimestamp, stixTimestamp } from '@threatlib/core/integration';
import { isStixId, isStixType, type TaxiiQuery } from './taxii-query.js';

/** One version of a STIX object a collection holds, with when it was added. */
export interface StoredObject {
  readonly id: string;
  readonly type: string;
  /** The version as the object writes it (`modified`, else `created`), or its `date_added` for an object with neither. */
  readonly version: string;
  readonly versionMicros: number;
  /** `spec_version`, or what TAXII servers take it to be without one (2.0 with created/modified, else 2.1). */
  readonly specVersion: string;
  /** When the collection took it in, in microseconds: unique and increasing within a collection. */
  readonly dateAdded: number;
  /** The object as JSON, as it was given. */
  readonly json: string;
}

/** What {@link TaxiiObjectStore.add} did with one object. */
export type AddOutcome =
  | { readonly ok: true; readonly stored: StoredObject; readonly added: boolean }
  | { readonly ok: false; readonly id?: string; readonly version?: string; readonly reason: string };

/** One page of records, and whether more matching ones follow it. */
export interface StorePage {
  readonly records: readonly StoredObject[];
  readonly more: boolean;
}

const SPEC_VERSION = /^\d\.\d$/;

/**
 * A collection's objects in memory, every version kept with its `date_added`, in the order they were added; bounded:
 * past `maxObjects` versions, the oldest added tenth is dropped. Pages are read from a position (a `date_added`) by a
 * binary search, then forward, so paging costs the page and not the collection.
 */
export class TaxiiObjectStore {
  readonly #records: StoredObject[] = [];
  /** Each id's versions, by version. */
  readonly #byId = new Map<string, StoredObject[]>();
  readonly #max: number;
  readonly #now: () => number;
  #lastAdded = 0;

  constructor(options: { maxObjects: number; now: () => number }) {
    this.#max = options.maxObjects;
    this.#now = options.now;
  }

  /** How many versions the collection holds. */
  get size(): number {
    return this.#records.length;
  }

  /** Whether the collection holds a version of `id`. */
  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** The versions of `id`, oldest version first. */
  versionsOf(id: string): readonly StoredObject[] {
    return this.#byId.get(id) ?? [];
  }

  /**
   * Takes in a STIX object: a new version is stored (with `date_added` now), a version held already changes nothing
   * (`added: false`); an object that is not a STIX object (no valid `type` and `id`, an unreadable version) is refused
   * with the reason.
   */
  add(object: unknown): AddOutcome {
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      return { ok: false, reason: 'not a STIX object (a JSON object)' };
    }
    const fields = object as Record<string, unknown>;
    const id = typeof fields.id === 'string' ? fields.id.slice(0, 300) : undefined;
    if (!isStixType(fields.type)) {
      return {
        ok: false,
        ...(id ? { id } : {}),
        reason: 'has no valid type (3 to 250 lower-case letters, digits, hyphens)',
      };
    }
    if (!isStixId(id) || !id.startsWith(`${fields.type}--`)) {
      return { ok: false, ...(id ? { id } : {}), reason: `has no valid id (${fields.type}--<UUID>)` };
    }
    if (
      fields.spec_version !== undefined &&
      !(typeof fields.spec_version === 'string' && SPEC_VERSION.test(fields.spec_version))
    ) {
      return { ok: false, id, reason: 'has a spec_version that is not a version such as 2.1' };
    }
    const written = fields.modified ?? fields.created;
    const writtenMicros = written === undefined ? undefined : parseStixTimestamp(written);
    if (written !== undefined && writtenMicros === undefined) {
      return {
        ok: false,
        id,
        reason: `has a ${fields.modified === undefined ? 'created' : 'modified'} time that is not a STIX timestamp`,
      };
    }
    const held = this.#byId.get(id);
    if (writtenMicros !== undefined) {
      const same = held?.find((version) => version.versionMicros === writtenMicros);
      if (same) return { ok: true, stored: same, added: false };
    } else if (held !== undefined) {
      // An object without created or modified (a cyber-observable) has one version only.
      return { ok: true, stored: held[0] as StoredObject, added: false };
    }
    const dateAdded = Math.max(this.#now() * 1000, this.#lastAdded + 1);
    this.#lastAdded = dateAdded;
    const stored: StoredObject = {
      id,
      type: fields.type,
      version: writtenMicros === undefined ? stixTimestamp(dateAdded) : (written as string),
      versionMicros: writtenMicros ?? dateAdded,
      specVersion:
        typeof fields.spec_version === 'string' ? fields.spec_version : written === undefined ? '2.1' : '2.0',
      dateAdded,
      json: JSON.stringify(object),
    };
    this.#records.push(stored);
    const versions = held ?? [];
    versions.push(stored);
    versions.sort((a, b) => a.versionMicros - b.versionMicros);
    this.#byId.set(id, versions);
    if (this.#records.length > this.#max) this.#evict();
    return { ok: true, stored, added: true };
  }

  /**
   * The records `query` selects, added after `after` (and after its `added_after`), in the order they were added: at
   * most `query.limit`, and no more than `maxBytes` of JSON (one at least). With `id`, only that object's versions.
   */
  page(query: TaxiiQuery, after: number | undefined, options: { id?: string; maxBytes: number }): StorePage {
    const from = Math.max(query.addedAfter ?? Number.NEGATIVE_INFINITY, after ?? Number.NEGATIVE_INFINITY);
    const source =
      options.id === undefined
        ? this.#records
        : [...(this.#byId.get(options.id) ?? [])].sort((a, b) => a.dateAdded - b.dateAdded);
    const records: StoredObject[] = [];
    let bytes = 0;
    for (let i = firstAfter(source, from); i < source.length; i++) {
      const record = source[i] as StoredObject;
      if (!this.#selects(query, record)) continue;
      if (records.length >= query.limit || (records.length > 0 && bytes + record.json.length > options.maxBytes)) {
        return { records, more: true };
      }
      records.push(record);
      bytes += record.json.length + 1;
    }
    return { records, more: false };
  }

  /** Removes the versions of `id` that `query` selects (its `match[version]` and `match[spec_version]`). */
  delete(id: string, query: TaxiiQuery): StoredObject[] {
    const versions = this.#byId.get(id) ?? [];
    const removed = versions.filter((record) => this.#selects(query, record));
    if (removed.length === 0) return [];
    const gone = new Set(removed);
    const kept = versions.filter((record) => !gone.has(record));
    if (kept.length === 0) this.#byId.delete(id);
    else this.#byId.set(id, kept);
    for (let i = this.#records.length - 1; i >= 0; i--) {
      if (gone.has(this.#records[i] as StoredObject)) this.#records.splice(i, 1);
    }
    return removed;
  }

  /** Whether `record` passes the query's id, type, spec_version and version filters. */
  #selects(query: TaxiiQuery, record: StoredObject): boolean {
    if (query.ids && !query.ids.has(record.id)) return false;
    if (query.types && !query.types.has(record.type)) return false;
    const versions = this.#byId.get(record.id) ?? [];
    // Without match[spec_version], the versions of the latest spec_version the object has (TAXII 2.1 section 3.5.1).
    const wanted =
      query.specVersions ??
      new Set([
        versions
          .map((version) => version.specVersion)
          .sort()
          .at(-1),
      ]);
    if (!wanted.has(record.specVersion)) return false;
    const { all, first, last, at } = query.versions;
    if (all || at.has(record.versionMicros)) return true;
    if (!first && !last) return false;
    const candidates = versions.filter((version) => wanted.has(version.specVersion));
    return (last && candidates.at(-1) === record) || (first && candidates[0] === record);
  }

  /** Drops the oldest added tenth of the records. */
  #evict(): void {
    const dropped = this.#records.splice(0, Math.max(1, Math.ceil(this.#max / 10)));
    for (const record of dropped) {
      const kept = (this.#byId.get(record.id) ?? []).filter((version) => version !== record);
      if (kept.length === 0) this.#byId.delete(record.id);
      else this.#byId.set(record.id, kept);
    }
  }
}

/** The index of the first record added after `micros` (records are in the order added). */
function firstAfter(records: readonly StoredObject[], micros: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((records[middle] as StoredObject).dateAdded > micros) high = middle;
    else low = middle + 1;
  }
  return low;
}
