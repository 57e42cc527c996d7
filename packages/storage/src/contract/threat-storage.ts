import type { AlertStore, IntegrationHealth } from '@threatlib/core/integration';
import type { ListStateStore } from '@threatlib/core/lists';
import type { WebhookOutboxStore } from '../document-store/webhook-outbox.js';

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
 * A campaign report, as core's campaign tracker emits it (the client's `campaignDetected` event): at least N distinct
 * threat indicators sharing a malware family, a tag or a referenced report, reported when the campaign forms and
 * again each time it grows, under the same `campaign` id.
 */
export interface CampaignReport {
  /** The campaign's stable id (`cmp_...`). */
  campaign: string;
  /** `formed` on the first report, `grown` on the later ones. */
  status: 'formed' | 'grown';
  /** What the indicators share: `{kind: 'malwareFamily' | 'tag' | 'reference', value}`. */
  sharedBy: { kind: string; value: string };
  /** The campaign's indicators at this report (the tracker lists at most 500). */
  indicators: string[];
  /** How many indicators it has at this report. */
  indicatorCount: number;
  /** Its earliest indicator's conclusion: a `Date` or an ISO 8601 string. */
  firstSeen: Date | string;
  /** Its latest indicator's conclusion: a `Date` or an ISO 8601 string. */
  lastSeen: Date | string;
  /** The sources that flagged its indicators. */
  sources: string[];
}

/**
 * What a store keeps of a campaign: one record per campaign id, grown by every report (indicators and sources
 * accumulate, `firstSeen` is the earliest, `lastSeen` the latest), kept `ttl` seconds after it was last seen.
 */
export interface StoredCampaign {
  /** The campaign's id (the record's id). */
  id: string;
  campaign: string;
  /** `grown` once any report said so. */
  status: 'formed' | 'grown';
  sharedBy: { kind: string; value: string };
  /** Every indicator a report listed, in the order they were first stored. */
  indicators: string[];
  /** The largest `indicatorCount` reported. */
  indicatorCount: number;
  firstSeen: Date;
  lastSeen: Date;
  sources: string[];
  /** `lastSeen` + the integration's `ttl`: from then on the record is not returned, and is deleted. */
  expiresAt: Date;
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
  /**
   * An alert store on this back end (core's `AlertStore` contract): alerts and their deliveries survive a restart,
   * and its `pending()` lets the client resume the deliveries left pending.
   */
  readonly alerts: AlertStore;
  /**
   * Folds campaign reports into one record per campaign id (upserts that only grow it, so a retried write changes
   * nothing), each kept `ttl` seconds after its latest `lastSeen`. Optional while a back end does not have it: the
   * integration then logs at start that campaigns are not kept.
   *
   * @throws {ValidationError} naming the report and field that is wrong, before anything is sent.
   */
  recordCampaigns?(reports: readonly CampaignReport[], options: { ttl: number }): Promise<void>;
  /** The campaign kept under `id`, or undefined when there is none (or it expired). */
  campaign?(id: string): Promise<StoredCampaign | undefined>;
  /**
   * An outbox for `@threatlib/webhooks` named `name`, where outgoing deliveries wait and survive a restart. Optional:
   * without it the webhooks keep their file outbox.
   */
  webhookOutbox?(name: string): WebhookOutboxStore;
  /**
   * Where a list fed over the network (core's TAXII list, `list:<name>`) keeps its position and indicators, shared by
   * the instances on the back end. Optional: without it the list keeps its state file.
   */
  listStateStore?(name: string): ListStateStore;
}
