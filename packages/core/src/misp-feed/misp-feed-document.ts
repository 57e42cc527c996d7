// The documents of a MISP feed as threatlib writes them (PyMISP's feed shapes): events, attributes, tags, the
// manifest, and the feed in memory.

/** An organisation as MISP events name their creator (`Orgc`). */
export interface MispOrganisation {
  readonly name: string;
  readonly uuid: string;
}

/** A MISP tag as feeds write it (PyMISP `MISPTag._to_feed`). */
export interface MispFeedTag {
  readonly colour: string;
  readonly local: false;
  readonly name: string;
  readonly relationship_type: '';
}

/** A MISP attribute as feeds write it (PyMISP `MISPAttribute._to_feed`). */
export interface MispFeedAttribute {
  readonly category: string;
  readonly comment: string;
  readonly deleted: false;
  readonly disable_correlation: false;
  /** Seconds since the epoch, as a string (MISP's JSON writes numbers of the database as strings). */
  readonly timestamp: string;
  readonly to_ids: boolean;
  readonly type: string;
  readonly uuid: string;
  readonly value: string;
}

/** The content of one event file, `<uuid>.json` (PyMISP `MISPEvent.to_feed`). */
export interface MispFeedEvent {
  readonly Event: {
    readonly analysis: string;
    readonly date: string;
    readonly extends_uuid: '';
    readonly info: string;
    readonly protected: false;
    readonly publish_timestamp: string;
    readonly published: true;
    readonly threat_level_id: string;
    readonly timestamp: string;
    readonly uuid: string;
    readonly Orgc: MispOrganisation;
    readonly Tag: readonly MispFeedTag[];
    readonly Attribute: readonly MispFeedAttribute[];
  };
}

/** One event's line in `manifest.json` (PyMISP `MISPEvent.manifest`): numbers as numbers. */
export interface MispManifestEntry {
  readonly Orgc: MispOrganisation;
  readonly Tag: readonly MispFeedTag[];
  readonly info: string;
  readonly date: string;
  readonly analysis: number;
  readonly threat_level_id: number;
  readonly timestamp: number;
}

/** A MISP feed in memory: its documents, and its files as they are written or served. */
export interface MispFeed {
  /** `manifest.json`: each event's UUID to its summary. */
  readonly manifest: Readonly<Record<string, MispManifestEntry>>;
  /** The events, by UUID. */
  readonly events: readonly MispFeedEvent[];
  /** The lines of `hashes.csv`: the MD5 of each attribute value (each part of a composite one) and its event. */
  readonly hashes: readonly (readonly [md5: string, eventUuid: string])[];
  /** Every file of the feed: `<uuid>.json` for each event, then `hashes.csv`, then `manifest.json`. */
  readonly files: readonly { readonly name: string; readonly text: string }[];
}
