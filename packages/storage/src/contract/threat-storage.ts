import type { AlertStore, IntegrationHealth } from '@threatlib/core';

/**
 * The documented stored threat record (`store('threats', record)`): what was learned about an indicator, when, and
 * for how long to keep it. `results` is the scan or correlation result, stored as given, so its fields are queryable
 * (`results.confidence`).
 */
export interface StoredThreatInput {
  /**
   * The record's id (1 to 128 letters, digits, `.`, `_`, `:`, `-`); one is made when absent. A record stored again
   * under an id already stored is not stored twice, so a retried write never doubles a record.
   */
  id?: string;
  indicator: string;
  /** The scan or correlation result (an object); a correlation's `confidence` is queried as `results.confidence`. */
  results: Record<string, unknown>;
  /** When the indicator was scanned: a `Date` or an ISO 8601 string. */
  scanDate: Date | string;
  /** Seconds the record is kept after `scanDate`; it is never returned once expired. */
  ttl: number;
}

/** A threat record as a store gives it back: dates as `Date`, and when it expires. */
export interface StoredThreat {
  id: string;
  indicator: string;
  results: Record<string, unknown>;
  scanDate: Date;
  ttl: number;
  /** `scanDate` + `ttl` seconds: from then on the record is never returned, and is deleted. */
  expiresAt: Date;
}

/** One conclusion about an indicator, as the storage integration records it into the indicator's history. */
export interface IndicatorSighting {
  /** The normalised indicator. */
  indicator: string;
  /** Its precise type (`domain`, `ipv4`...). */
  type: string;
  seenAt: Date;
  /** The correlation's verdict (`malicious`, `suspicious`, `clean`, `unknown`). */
  verdict: string;
  /** 0..100. */
  confidence: number;
  /** 1..10. */
  riskScore: number;
}

/** What a store knows about an indicator: one record per indicator, kept up to date by every sighting. */
export interface IndicatorHistory {
  indicator: string;
  type: string;
  firstSeen: Date;
  lastSeen: Date;
  timesSeen: number;
  /** Verdict, confidence and risk score of the latest sighting (by `seenAt`). */
  lastVerdict: string;
  lastConfidence: number;
  lastRiskScore: number;
}

/**
 * What the storage integration needs from a back end (the document store, the search index), and what the storage
 * compliance suite checks of each: threat records with expiry, one history record per indicator, and a persistent
 * alert store. `start()` connects and prepares the collections or indices; `stop()` releases every socket and timer.
 */
export interface ThreatStorage {
  /** Which back end this is (`mongodb`, `elasticsearch`). */
  readonly backend: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<IntegrationHealth>;
  /**
   * Stores threat records (documented shape); resolves once the server acknowledged all of them.
   *
   * @throws {ValidationError} naming the record and field that is wrong, before anything is sent.
   */
  storeThreats(records: readonly StoredThreatInput[]): Promise<void>;
  /** The unexpired threat records of an indicator, newest `scanDate` first, at most `limit` (default 100). */
  threatsOf(indicator: string, limit?: number): Promise<StoredThreat[]>;
  /** Folds sightings into each indicator's history (first and last seen, times seen, latest verdict). */
  recordSightings(sightings: readonly IndicatorSighting[]): Promise<void>;
  /** The history of an indicator, or undefined when it was never seen. */
  indicatorHistory(indicator: string): Promise<IndicatorHistory | undefined>;
  /** Deletes the threat records expired now; resolves with how many. */
  sweepExpired(): Promise<number>;
  /** An alert store on this back end (core's `AlertStore` contract): alerts and their deliveries survive a restart. */
  readonly alerts: AlertStore;
}
