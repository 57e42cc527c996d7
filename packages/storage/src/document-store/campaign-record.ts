import type { AnyBulkWriteOperation } from 'mongodb';
import type { ParsedCampaignReport } from '../contract/campaign-schema.js';
import type { StoredCampaign } from '../contract/threat-storage.js';
import { EXPIRY_FIELD } from './expiry.js';

/** One campaign as stored in the `campaigns` collection, under its id. */
export interface CampaignDocument {
  _id: string;
  campaign: string;
  status: 'formed' | 'grown';
  sharedBy: { kind: string; value: string };
  indicators: string[];
  indicatorCount: number;
  firstSeen: Date;
  lastSeen: Date;
  sources: string[];
  expiresAt: Date;
}

/**
 * The upserts that fold campaign reports into their records, one per report, in order: indicators and sources
 * accumulate (`$addToSet`), `firstSeen` keeps the earliest and `lastSeen`, `indicatorCount` and `expiresAt` the
 * largest (`$min`, `$max`), and `status` becomes `grown` once a report says so and never goes back. Every operator
 * only grows the record, so writing a report again (a retried batch) changes nothing.
 */
export function campaignUpserts(
  reports: readonly ParsedCampaignReport[],
  ttlSeconds: number,
): AnyBulkWriteOperation<CampaignDocument>[] {
  return reports.map((report) => {
    const grown = report.status === 'grown';
    return {
      updateOne: {
        filter: { _id: report.campaign },
        update: {
          $setOnInsert: {
            campaign: report.campaign,
            sharedBy: report.sharedBy,
            ...(grown ? {} : { status: 'formed' as const }),
          },
          ...(grown ? { $set: { status: 'grown' as const } } : {}),
          $addToSet: { indicators: { $each: report.indicators }, sources: { $each: report.sources } },
          $min: { firstSeen: report.firstSeen },
          $max: {
            lastSeen: report.lastSeen,
            indicatorCount: report.indicatorCount,
            [EXPIRY_FIELD]: new Date(report.lastSeen.getTime() + ttlSeconds * 1000),
          },
        },
        upsert: true,
      },
    };
  });
}

/** A stored campaign as the contract's record. */
export function toStoredCampaign(document: CampaignDocument): StoredCampaign {
  return {
    id: document._id,
    campaign: document.campaign,
    status: document.status,
    sharedBy: document.sharedBy,
    indicators: document.indicators,
    indicatorCount: document.indicatorCount,
    firstSeen: document.firstSeen,
    lastSeen: document.lastSeen,
    sources: document.sources,
    expiresAt: document.expiresAt,
  };
}
