import type { IndicatorTypeName } from '../indicators/indicator-type-name.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import { uuidV5 } from './uuid-v5.js';

/**
 * The namespace of every deterministic STIX id threatlib makes (UUIDv5, RFC 9562 section 5.5). It was drawn at
 * random once and never changes: changing it would give every indicator threatlib ever published a new id.
 */
export const THREATLIB_STIX_NAMESPACE = 'a5901b05-45b5-48ea-aaf7-03d0117e563d';

/** A STIX 2.1 external reference (STIX 2.1 section 2.5): where an indicator's verdict came from. */
export interface StixExternalReference {
  /** The source: a feed id such as `feed_otx` or `list:ipsum`. */
  source_name: string;
  /** What the source said. */
  description?: string;
  /** A page about the indicator at the source. */
  url?: string;
  /** The source's own id for the indicator. */
  external_id?: string;
}

/** A STIX 2.1 identity object (STIX 2.1 section 4.5), as threatlib writes it for itself. */
export interface StixIdentity {
  type: 'identity';
  spec_version: '2.1';
  id: string;
  /** Its own id: threatlib vouches for itself, as the STIX interoperability profile asks of a producer. */
  created_by_ref: string;
  created: string;
  modified: string;
  name: string;
  description?: string;
  identity_class: string;
}

/** A STIX 2.1 indicator object (STIX 2.1 section 4.7) with the properties threatlib writes. */
export interface StixIndicator {
  type: 'indicator';
  spec_version: '2.1';
  /** `indicator--<UUIDv5>`, see {@link stixIndicatorId}. */
  id: string;
  /** The id of {@link THREATLIB_STIX_IDENTITY}. */
  created_by_ref: string;
  /** RFC 3339, UTC, millisecond precision. */
  created: string;
  /** RFC 3339, UTC, millisecond precision. */
  modified: string;
  /** The indicator's value. */
  name: string;
  /** The verdict and the sources behind it, in words. */
  description: string;
  /** Values of the STIX indicator-type vocabulary: `malicious-activity`, `anomalous-activity`, `benign`, … */
  indicator_types: string[];
  /** A STIX pattern, as {@link toStixPattern} writes it. */
  pattern: string;
  pattern_type: 'stix';
  pattern_version: '2.1';
  /** RFC 3339, UTC, millisecond precision. */
  valid_from: string;
  /** 0 to 100. */
  confidence: number;
  /** Categories, tags and malware families the sources gave; absent when they gave none. */
  labels?: string[];
  /** One per source that answered (one per reference URL it gave); absent when none answered. */
  external_references?: StixExternalReference[];
}

/** A STIX 2.1 bundle (STIX 2.1 section 8), as {@link toStixBundle} writes it. */
export interface StixBundle {
  type: 'bundle';
  /** `bundle--<UUID>`. */
  id: string;
  /** The threatlib identity first, then one indicator per distinct indicator. */
  objects: Array<StixIdentity | StixIndicator>;
}

const IDENTITY_ID = `identity--${uuidV5('identity:threatlib', THREATLIB_STIX_NAMESPACE)}`;

/**
 * The STIX identity threatlib's indicators name as their creator (`created_by_ref`). Its id and its timestamps are
 * fixed, so every bundle threatlib writes carries the same object, and consumers see one creator.
 */
export const THREATLIB_STIX_IDENTITY: Readonly<StixIdentity> = Object.freeze({
  type: 'identity',
  spec_version: '2.1',
  id: IDENTITY_ID,
  created_by_ref: IDENTITY_ID,
  created: '2025-01-01T00:00:00.000Z',
  modified: '2025-01-01T00:00:00.000Z',
  name: 'threatlib',
  description: 'threatlib, a threat-intelligence client library: indicators correlated from several feeds.',
  identity_class: 'system',
});

/**
 * The deterministic STIX id of an indicator: `indicator--` and the UUIDv5 of `<type>:<value>` under
 * {@link THREATLIB_STIX_NAMESPACE}, with the precise type and the normalised value that `parseIndicator` gives
 * (`{type: 'ip', value: '2001:DB8::1'}` is named as `ipv6:2001:db8::1`). The same indicator gets the same id however
 * it was written and whenever it is published, so consumers that key on the id (Sentinel, TAXII servers) update it
 * instead of adding a second copy. STIX 2.1 recommends UUIDv4 for indicators and v5 for observables; threatlib
 * chooses v5 for this reason.
 *
 * @throws {@link InvalidIndicatorError} when the value is not of its type.
 *
 * @example
 * ```ts
 * stixIndicatorId({ type: 'hostname', value: 'Evil.Example' }); // the id of {type: 'domain', value: 'evil.example'}
 * ```
 */
export function stixIndicatorId(indicator: { readonly type: IndicatorTypeName; readonly value: string }): string {
  const { type, value } = parseIndicator(indicator.value, indicator.type);
  return `indicator--${uuidV5(`${type}:${value}`, THREATLIB_STIX_NAMESPACE)}`;
}
