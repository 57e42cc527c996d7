import {
  type LocalListMatchMode,
  type LocalListVerdict,
  StixIndicatorList,
  type StixObjectOutcome,
} from '@threatlib/core/lists';
import type { StoredObject, TaxiiObjectStore } from './object-store.js';

/**
 * What makes the writable collection a list the client asks: a `StixIndicatorList` kept equal to the newest version
 * of each indicator the collection holds. Objects POSTed are taken in (newer versions replace older, revoked ones
 * are removed, patterns threatlib cannot read are counted in the list's status); a DELETE takes the object out, or
 * back to the newest version left.
 */
export class TaxiiInbox {
  readonly list: StixIndicatorList;
  readonly weight: number;
  readonly #store: TaxiiObjectStore;

  constructor(options: {
    store: TaxiiObjectStore;
    listName: string;
    verdict: LocalListVerdict;
    match: LocalListMatchMode;
    weight: number;
    collection: string;
    now: () => number;
  }) {
    this.#store = options.store;
    this.weight = options.weight;
    this.list = new StixIndicatorList({
      name: options.listName,
      verdict: options.verdict,
      match: options.match,
      source: `TAXII collection ${options.collection}`,
      now: options.now,
    });
  }

  /** Takes in the objects just stored; says, for each indicator, what the list did with it. */
  took(stored: readonly StoredObject[]): Map<StoredObject, string> {
    const indicators = stored.filter((record) => record.type === 'indicator');
    const outcomes = this.list.upsert(indicators.map((record) => JSON.parse(record.json) as unknown));
    const said = new Map<StoredObject, string>();
    indicators.forEach((record, i) => {
      said.set(record, describe(outcomes[i] as StixObjectOutcome, this.list.name));
    });
    return said;
  }

  /** After versions of `id` were deleted: the list holds the newest version left, or nothing of it. */
  deleted(id: string): void {
    this.list.remove(id, { commit: false });
    const left = this.#store.versionsOf(id).at(-1);
    if (left !== undefined) this.list.upsert([JSON.parse(left.json) as unknown], { commit: false, count: false });
    this.list.commit();
  }
}

function describe(outcome: StixObjectOutcome, name: string): string {
  const partly = outcome.reason ? `; part of its pattern was not read (${outcome.reason}: ${outcome.detail})` : '';
  switch (outcome.outcome) {
    case 'added':
      return `listed in "${name}"${partly}`;
    case 'updated':
      return `listed in "${name}", replacing an older version${partly}`;
    case 'removed':
      return `taken off "${name}" (${outcome.reason})`;
    case 'unchanged':
      return `"${name}" holds this version already`;
    default:
      return `stored, not listed (${outcome.reason}${outcome.detail ? `: ${outcome.detail}` : ''})`;
  }
}
