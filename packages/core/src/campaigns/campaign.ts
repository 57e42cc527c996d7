/** What a campaign's indicators share: a malware family, a tag, or a referenced pulse or report. */
export type CampaignLinkKind = 'malwareFamily' | 'tag' | 'reference';

/**
 * The payload of `campaignDetected` (and of the `campaign-detected` webhook): at least `minIndicators` distinct threat
 * indicators that share a malware family, a tag or a referenced pulse or report within the window. Reported once
 * when the campaign forms and again each time it grows, under the same `campaign` id.
 */
export interface CampaignDetectedEvent {
  /** Stable id of the campaign (`cmp_...`), the same in every report of it. */
  campaign: string;
  /** `formed`: first report; `grown`: more indicators joined since the last one. */
  status: 'formed' | 'grown';
  /** What the indicators share. */
  sharedBy: { kind: CampaignLinkKind; value: string };
  /** The distinct indicators in the campaign now (within the window), in the order they joined (at most 500). */
  indicators: string[];
  /** How many indicators the campaign has now (more than `indicators` lists when it is very large). */
  indicatorCount: number;
  /** When its earliest indicator still in the window was concluded a threat (ISO 8601). */
  firstSeen: string;
  /** When its latest indicator was (ISO 8601). */
  lastSeen: string;
  /** The sources that flagged its indicators. */
  sources: string[];
}

/** One threat as the campaign tracker sees it: the indicator, when, who flagged it, and what it is linked to. */
export interface CampaignObservation {
  indicator: string;
  /** Epoch ms. */
  at: number;
  /** The sources that flagged it. */
  sources: readonly string[];
  malwareFamilies: readonly string[];
  tags: readonly string[];
  /** Links to the pulses and reports that mention it. */
  references: readonly string[];
}
