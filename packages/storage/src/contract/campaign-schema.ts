import { parseRecord } from '@threatlib/core';
import { z } from 'zod';
import { asDate } from '../filter/date-fields.js';
import type { CampaignReport } from './threat-storage.js';

const text = (max: number) => z.string().min(1, { error: 'must not be empty' }).max(max);
const date = z
  .custom<Date | string>((value) => asDate(value) !== undefined, { error: 'expected a Date or an ISO 8601 date-time' })
  .transform((value) => asDate(value) as Date);

/** A campaign report with its dates as `Date`. */
export type ParsedCampaignReport = Omit<CampaignReport, 'firstSeen' | 'lastSeen'> & { firstSeen: Date; lastSeen: Date };

// Fields a later tracker adds are ignored rather than refused: only these are kept.
const CampaignReportSchema = z
  .object({
    campaign: text(200),
    status: z.enum(['formed', 'grown']),
    sharedBy: z.object({ kind: text(32), value: text(2048) }),
    indicators: z.array(text(8192)).max(10_000),
    indicatorCount: z.int().nonnegative(),
    firstSeen: date,
    lastSeen: date,
    sources: z.array(text(200)).max(1_000),
  })
  .refine((report) => report.firstSeen <= report.lastSeen, {
    error: 'firstSeen is after lastSeen',
    path: ['lastSeen'],
  });

const CampaignReportsSchema = z.array(CampaignReportSchema).max(100_000);

/**
 * Validates campaign reports before a back end folds them into campaign records.
 *
 * @throws {ValidationError} `Invalid campaign reports: [i].<field>: <reason>`, naming every field that is wrong.
 */
export function parseCampaignReports(reports: readonly CampaignReport[]): ParsedCampaignReport[] {
  return parseRecord(CampaignReportsSchema, reports, 'campaign reports').map((report) => ({
    campaign: report.campaign,
    status: report.status,
    sharedBy: { kind: report.sharedBy.kind, value: report.sharedBy.value },
    indicators: report.indicators,
    indicatorCount: report.indicatorCount,
    firstSeen: report.firstSeen,
    lastSeen: report.lastSeen,
    sources: report.sources,
  }));
}
