// What the QRadar emulator holds (received events, reference sets, Ariel searches, offenses with their notes) and
// the state its REST handlers share.
import type { QradarEvent } from './qradar-events.js';

/** One element of a reference set. */
export interface ReferenceSetElement {
  value: string;
  source: string;
  first_seen: number;
  last_seen: number;
  domain_id: number | null;
}

/** A reference set. */
export interface ReferenceSet {
  name: string;
  element_type: string;
  timeout_type: string;
  time_to_live: string | undefined;
  creation_time: number;
  collection_id: number;
  elements: Map<string, ReferenceSetElement>;
}

/** A note on an offense. */
export interface OffenseNote {
  id: number;
  create_time: number;
  username: string;
  note_text: string;
}

/** An Ariel search: its one result row, computed when it is created, and the status polls left before COMPLETED. */
export interface ArielSearch {
  search_id: string;
  query_expression: string;
  row: Record<string, number | null>;
  polls: number;
}

/** The state the REST handlers share. */
export interface QradarState {
  readonly events: QradarEvent[];
  readonly sets: Map<string, ReferenceSet>;
  readonly searches: ArielSearch[];
  readonly offenses: Map<number, { id: number; notes: OffenseNote[] }>;
  /** Domains that exist besides the shared one. */
  readonly domains: ReadonlySet<number>;
  /** Custom event properties AQL may name besides the LEEF keys received. */
  readonly customProperties: ReadonlySet<string>;
  /** Whether a status poll with `Prefer: wait=N` completes the search at once. */
  readonly honourPreferWait: boolean;
  /** Status polls a new search answers before it is COMPLETED (the emulator's `arielPolls` now). */
  arielPolls(): number;
  /** The next id of a reference set collection, a search or a note (one counter, as before). */
  nextId(): number;
}
