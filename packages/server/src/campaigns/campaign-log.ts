import type { CampaignDetectedEvent, ThreatClient } from '@threatlib/core';

/** Campaigns kept by default: the newest reports, one per campaign. */
const DEFAULT_KEPT = 200;

/**
 * The campaigns a client detected while the server ran, for `GET /campaigns`: each campaign's latest report (its
 * `campaignDetected` event), the most recently reported first, at most `kept` of them (the oldest go first).
 */
export class CampaignLog {
  readonly #campaigns = new Map<string, CampaignDetectedEvent>();
  readonly #kept: number;

  constructor(client: ThreatClient, kept = DEFAULT_KEPT) {
    this.#kept = kept;
    client.on('campaignDetected', (campaign) => {
      this.#campaigns.delete(campaign.campaign);
      this.#campaigns.set(campaign.campaign, campaign);
      if (this.#campaigns.size > this.#kept) {
        const oldest = this.#campaigns.keys().next().value;
        if (oldest !== undefined) this.#campaigns.delete(oldest);
      }
    });
  }

  /** The kept campaigns, the most recently reported first. */
  list(): CampaignDetectedEvent[] {
    return [...this.#campaigns.values()].reverse();
  }
}
