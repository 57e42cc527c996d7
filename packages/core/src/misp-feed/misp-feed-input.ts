// What the MISP feed writer reads: alerts and correlations, and its options.
import type { StixCorrelationInput } from '../stix/to-stix-bundle.js';
import type { MispOrganisation } from './misp-feed-document.js';

/** An alert as {@link toMispFeed} reads it: a stored `Alert` is one. */
export interface MispAlertInput {
  /** Gives the event's UUID: the same alert is the same event in every export. */
  readonly id: string;
  /** The event's `info`. */
  readonly title: string;
  /** Gives `threat_level_id`: critical and high 1 (High), medium 2, low 3, informational 4 (Undefined). */
  readonly severity: string;
  /** ISO 8601: the event's date and timestamp. */
  readonly timestamp: string;
  /** Kept as a `comment` attribute (not for detection). */
  readonly description?: string;
  readonly indicators: readonly {
    readonly type: string;
    readonly value: string;
    readonly confidence?: number;
    readonly source?: string;
    readonly sources?: readonly string[];
  }[];
}

/**
 * A correlation as {@link toMispFeed} reads it: what `toStixBundle` reads (a `CorrelationResult`, a `Correlation`),
 * and its `riskScore` when it has one.
 */
export interface MispCorrelationInput extends StixCorrelationInput {
  /** 1..10: gives `threat_level_id` (else the confidence does, as `riskScoreForConfidence`). */
  readonly riskScore?: number;
}

/** What {@link toMispFeed} and `exportMispFeed` take: correlations and alerts, in any mix. */
export type MispFeedInput = MispCorrelationInput | MispAlertInput;

/** Options of {@link toMispFeed}. */
export interface ToMispFeedOptions {
  /** The time of correlations that carry no `startedAt` (default: the current time). */
  readonly now?: Date | string | number;
  /** The events' creator (default {@link THREATLIB_MISP_ORG}). */
  readonly orgc?: MispOrganisation;
  /** Tags put on every event, such as `tlp:amber` (how the feed may be shared). */
  readonly tags?: readonly string[];
}
