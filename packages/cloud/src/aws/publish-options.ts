import { confidenceSchema } from '@threatlib/core/integration';
import { z } from 'zod';
import { THREAT_LIST_FORMATS } from './threat-list.js';

/** How often a scheduled threat list may be published at most: GuardDuty takes minutes to activate a list. */
export const MIN_PUBLISH_INTERVAL_MS = 60_000;

/** The options of `publishThreatList`. */
export const PublishThreatListOptionsSchema = z.strictObject({
  /** The S3 bucket the list is written to. */
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    error: 'expected an S3 bucket name (3 to 63 lower-case letters, digits, dots, hyphens)',
  }),
  /** The object key (`threatlib/threats.txt`). */
  key: z.string().min(1).max(1024),
  /** The GuardDuty threat-intel set's name: the set of that name is updated, or created when there is none. */
  name: z.string().min(1).max(300),
  /** `TXT` (GuardDuty's plaintext IP list, the default) or `STIX` (a STIX 2.1 bundle by `toStixBundle`). */
  format: z.enum(THREAT_LIST_FORMATS).default('TXT'),
  /** Only indicators whose current confidence is at least this (0 to 100). Default 80. */
  minConfidence: confidenceSchema('minConfidence').default(80),
  /** Only indicators reported at or after this time. */
  since: z.date().optional(),
  /** Whether GuardDuty uses the set (default true: activating again makes it read the new list). */
  activate: z.boolean().default(true),
  /** The detector; absent: the integration's. */
  detectorId: z.string().min(1).max(300).optional(),
  /** The account that must own the bucket (GuardDuty checks it when reading the list). */
  expectedBucketOwner: z
    .string()
    .regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' })
    .optional(),
  /**
   * The URL GuardDuty reads the list from. Default `https://s3.amazonaws.com/<bucket>/<key>` (GuardDuty's
   * documented form); give another for a bucket GuardDuty reaches differently.
   */
  location: z
    .url({ protocol: /^(https?|s3)$/ })
    .max(300)
    .optional(),
  /** Publish again every `intervalMs` (at least 60000) until `stop()`. */
  schedule: z.strictObject({ intervalMs: z.int().min(MIN_PUBLISH_INTERVAL_MS) }).optional(),
});

/** What users pass to `publishThreatList`. */
export type PublishThreatListOptions = z.input<typeof PublishThreatListOptionsSchema>;

/** `publishThreatList`'s options, validated. */
export type ResolvedPublishOptions = z.output<typeof PublishThreatListOptionsSchema>;

/** The URL GuardDuty reads `key` of `bucket` from: `https://s3.amazonaws.com/<bucket>/<key>`, the key's segments encoded. */
export function s3Location(bucket: string, key: string): string {
  return `https://s3.amazonaws.com/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
