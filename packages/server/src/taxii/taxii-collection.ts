import { stixMediaType } from './media-types.js';
import type { TaxiiObjectStore } from './object-store.js';
import type { TaxiiInbox } from './taxii-inbox.js';

/**
 * The collection of the indicators of the threats the client concluded (read-only). Its id is fixed, so clients
 * configured with it keep working across restarts and instances.
 */
export const INDICATORS_COLLECTION_ID = '39475a99-eeff-4c30-99c7-36f1424e6c93';
/** The writable collection whose indicators the client lists. */
export const INBOX_COLLECTION_ID = '6d00c3df-079e-4c02-bbd2-d2abf468cd2c';

/** A collection of the API root: its description, its objects, and for the writable one, its list. */
export interface TaxiiCollection {
  readonly id: string;
  /** Its name in URLs besides the id (`indicators`, `inbox`), unique in the API root. */
  readonly alias: string;
  readonly title: string;
  readonly description: string;
  readonly canRead: boolean;
  readonly canWrite: boolean;
  readonly store: TaxiiObjectStore;
  /** The writable collection's list. */
  readonly inbox?: TaxiiInbox;
}

/** A collection as `GET <api root>/collections/` describes it (TAXII 2.1 section 5.2.1). */
export function collectionResource(collection: TaxiiCollection) {
  return {
    id: collection.id,
    title: collection.title,
    description: collection.description,
    alias: collection.alias,
    can_read: collection.canRead,
    can_write: collection.canWrite,
    media_types: [stixMediaType('2.1')],
  };
}
