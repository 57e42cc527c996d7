import { LocalList } from '../lists/local-list.js';
import { TaxiiListSource, type TaxiiListStatus } from '../lists/taxii/taxii-list-source.js';
import type { SkippedEntry } from '../lists/warninglist.js';
import { MispFeedList, type MispFeedStatus } from '../misp-feed/misp-feed-list.js';
import type { LocalSource } from '../scout/scout-engine.js';
import type { AddedListStatus } from './added-lists.js';

/** Where one list stands, as `client.listStatus()` reports it: a configured one, or one added at run time. */
export type ListStatus =
  | {
      readonly kind: 'file';
      readonly name: string;
      /** The file. */
      readonly source: string;
      readonly format: string;
      readonly entries: number;
      /** Lines (or entries) not used, and the first few with why. */
      readonly skipped: number;
      readonly firstSkipped: readonly SkippedEntry[];
    }
  | ({ readonly kind: 'misp' } & MispFeedStatus)
  | ({ readonly kind: 'taxii'; readonly name: string } & TaxiiListStatus)
  | AddedListStatus;

/** The status of each list the client loaded, in configuration order. */
export function listStatus(lists: readonly LocalSource[]): ListStatus[] {
  const statuses: ListStatus[] = [];
  for (const list of lists) {
    if (list instanceof MispFeedList) statuses.push({ kind: 'misp', ...list.status() });
    else if (list instanceof TaxiiListSource) statuses.push({ kind: 'taxii', name: list.name, ...list.status() });
    else if (list instanceof LocalList) {
      statuses.push({
        kind: 'file',
        name: list.name,
        source: list.source,
        format: list.format,
        entries: list.entries,
        skipped: list.skipped,
        firstSkipped: list.firstSkipped,
      });
    }
  }
  return statuses;
}
