// The shapes of the server's answers the page reads (the server's OpenAPI document, /openapi.json, is the reference).
// Where core's own record is already what the server sends as JSON (no Date, no class), it is imported as a type
// (erased at build: the page bundles nothing of core), so the page cannot drift from it.
import type { AlertDelivery, Contribution, FeedQuotaReport, FeedStatusReport } from '@threatlib/core';

/** One feed of `GET /feeds/status`. */
export type FeedState = FeedStatusReport;
/** One feed of `GET /quotas`. */
export type FeedQuota = FeedQuotaReport;

/** One source's answer to a lookup (`FeedResult`). */
interface FeedResult {
  feed: string;
  indicator: string;
  type: string;
  status: string;
  verdict: string;
  score: number;
  categories: string[];
  tags: string[];
  malwareFamilies: string[];
  references: string[];
  evidence: string[];
  durationMs: number;
  cached: boolean;
  error?: { message: string; statusCode?: number; retryAt?: string };
}

/** A warninglist entry that matched (the indicator is known benign). */
interface WarninglistMatch {
  list: string;
  entry: string;
  reason: string;
}

/** `POST /threats/batch`'s verdict of one indicator (`ScanResponse`). */
export interface ScanResult {
  indicator: string;
  type: string;
  verdict: string;
  isThreat: boolean;
  riskScore: number;
  confidence: number;
  consensus: number;
  results: FeedResult[];
  warninglist?: WarninglistMatch;
  startedAt: string;
  durationMs: number;
  /** Why, from the scan's own lookup (the page asks with `explain: true`); absent on verdicts kept from before. */
  explanation?: Explanation;
}

/** An RFC 9457 problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
}

/** `POST /threats/batch`'s answer. */
export interface BatchResponse {
  results: Array<{ input: string; ok: true; result: ScanResult } | { input: string; ok: false; problem: Problem }>;
  summary: { total: number; succeeded: number; failed: number };
}

/** A scan's `explanation` (asked with `explain: true`): the correlation's figures and each source's part. */
interface Explanation {
  sourcesQueried: number;
  sourcesAnswered: number;
  strategy: string;
  thresholds: { confidence: number; consensus: number; riskScore: number; correlationWeight: number };
  contributions: Contribution[];
  failures: Array<{ feed: string; status: string; message: string }>;
}

/** A stored alert (`Alert`). */
export interface Alert {
  id: string;
  title: string;
  severity: string;
  description?: string;
  indicators: Array<{ type: string; value: string; confidence?: number; source?: string }>;
  timestamp: string;
  source?: string;
  riskScore?: number;
  deliveries: AlertDelivery[];
}

/** `GET /alerts`. */
export interface AlertPage {
  items: Alert[];
  nextCursor?: string;
}

/** `GET /health`. */
export interface Health {
  status: string;
  ready: boolean;
  clients: Array<{
    prefix: string;
    health?: string;
    checks?: Record<string, unknown>;
    /** `[{name, healthy, detail}]` (a map by name from older servers). */
    integrations?: unknown;
    [key: string]: unknown;
  }>;
}

/** A detected campaign (`GET /campaigns`). */
interface Campaign {
  campaign: string;
  status: string;
  sharedBy: { kind: string; value: string };
  indicators: string[];
  indicatorCount: number;
  firstSeen: string;
  lastSeen: string;
  sources: string[];
}

/** `GET /campaigns`. */
export interface CampaignList {
  enabled: boolean;
  campaigns: Campaign[];
}
