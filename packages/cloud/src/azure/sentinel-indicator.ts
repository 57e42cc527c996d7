// What `createIndicator` takes, and what it becomes for each API. Sources:
// - STIX 2.1 indicator (4.7: pattern, pattern_type, pattern_version, valid_from, valid_until, indicator_types, name,
//   description) and the common properties (3.2: id, created, modified, labels, confidence):
//   https://docs.oasis-open.org/cti/stix/v2.1/os/stix-v2.1-os.html
// - The upload API's indicator properties (labels are shown as Tags; indicator_types from indicator-type-ov):
//   https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
// - The legacy API's ThreatIntelligenceIndicatorModel (kind, pattern, patternType, source, displayName, confidence,
//   labels, threatTypes, validFrom, validUntil, description, createdByRef):
//   https://learn.microsoft.com/en-us/javascript/api/@azure/arm-securityinsight/threatintelligenceindicatormodel
import { createHash } from 'node:crypto';
import type { ThreatIntelligenceIndicatorModel } from '@azure/arm-securityinsight';
import { THREATLIB_STIX_IDENTITY, THREATLIB_STIX_NAMESPACE } from '@threatlib/core';
import { confidenceSchema } from '@threatlib/core/integration';
import { z } from 'zod';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const timestamp = z.union([z.date(), z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' })]);
const terms = (what: string) =>
  z.array(
    z
      .string()
      .trim()
      .min(1, { error: `an empty ${what}` })
      .max(256),
    { error: `expected a list of ${what}s` },
  );

/**
 * A Sentinel threat-intelligence indicator as `createIndicator` takes it: `pattern` (a STIX pattern), `labels`,
 * `confidence` (0..100) and `threatTypes` as documented, and optionally its name, description, validity and STIX id.
 */
export const SentinelIndicatorSchema = z
  .strictObject({
    /** A STIX 2.1 pattern: `[ipv4-addr:value = '198.51.100.7']`. Sentinel checks its syntax. */
    pattern: z
      .string({ error: "required: a STIX pattern such as [ipv4-addr:value = '198.51.100.7']" })
      .trim()
      .min(1, { error: "required: a STIX pattern such as [ipv4-addr:value = '198.51.100.7']" })
      .max(65_536),
    /** Tags shown in Sentinel. */
    labels: terms('label').max(100).default([]),
    /**
     * 0..100, rounded to the integer STIX requires (45.5 → 46). A 0..1 score is refused: rounded, 0.85 would be 1.
     */
    confidence: confidenceSchema().transform(Math.round).optional(),
    /** What the indicator points at (`malicious-activity`, `anonymization`…): STIX `indicator_types`. */
    threatTypes: terms('threat type').max(50).default([]),
    /** Its name in Sentinel; default: the value a single-comparison pattern matches, else the pattern. */
    name: z.string().trim().min(1).max(256).optional(),
    description: z.string().max(10_000).optional(),
    /** From when it holds (default: now). */
    validFrom: timestamp.optional(),
    /** Until when it holds; after `validFrom`. */
    validUntil: timestamp.optional(),
    /** Its STIX id, `indicator--<UUID>`; default: one derived from the pattern, so the same pattern updates one object. */
    id: z
      .string()
      .regex(new RegExp(`^indicator--${UUID}$`), { error: 'expected indicator--<UUID>' })
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (value.validFrom !== undefined && value.validUntil !== undefined) {
      if (new Date(value.validUntil).getTime() <= new Date(value.validFrom).getTime()) {
        ctx.addIssue({ code: 'custom', path: ['validUntil'], message: 'must be after validFrom' });
      }
    }
  });

/** `{pattern, labels, confidence, threatTypes}` and the optional rest. */
export type SentinelIndicator = z.input<typeof SentinelIndicatorSchema>;

/** An indicator once validated. */
export type ResolvedSentinelIndicator = z.output<typeof SentinelIndicatorSchema>;

/** A STIX 2.1 indicator object as the upload API takes it. */
export interface StixIndicatorObject {
  type: 'indicator';
  spec_version: '2.1';
  id: string;
  created_by_ref?: string;
  created: string;
  modified: string;
  name?: string;
  description?: string;
  indicator_types?: string[];
  pattern: string;
  pattern_type: string;
  pattern_version?: string;
  valid_from: string;
  valid_until?: string;
  confidence?: number;
  labels?: string[];
  external_references?: Array<{ source_name: string; description?: string; url?: string; external_id?: string }>;
}

/**
 * The STIX indicator object of `indicator` at `now`: its id given or derived from the pattern (a UUIDv5 under
 * threatlib's STIX namespace, so publishing the same pattern again updates the object rather than adding one),
 * `created` = `modified` = now, `valid_from` now unless given, threatlib as its creator.
 */
export function toStixIndicatorObject(indicator: ResolvedSentinelIndicator, now: Date): StixIndicatorObject {
  const at = now.toISOString();
  const name = indicator.name ?? nameOf(indicator.pattern);
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: indicator.id ?? patternIndicatorId(indicator.pattern),
    created_by_ref: THREATLIB_STIX_IDENTITY.id,
    created: at,
    modified: at,
    name,
    // STIX 2.1 (4.7): an indicator SHOULD have both a name and a description.
    description: indicator.description ?? `Threat indicator ${name}, published by threatlib.`,
    ...(indicator.threatTypes.length === 0 ? {} : { indicator_types: indicator.threatTypes }),
    pattern: indicator.pattern,
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: indicator.validFrom === undefined ? at : new Date(indicator.validFrom).toISOString(),
    ...(indicator.validUntil === undefined ? {} : { valid_until: new Date(indicator.validUntil).toISOString() }),
    ...(indicator.confidence === undefined ? {} : { confidence: indicator.confidence }),
    ...(indicator.labels.length === 0 ? {} : { labels: indicator.labels }),
  };
}

/** The legacy API's model of a STIX indicator object, published by `source`. */
export function toLegacyIndicator(object: StixIndicatorObject, source: string): ThreatIntelligenceIndicatorModel {
  return {
    kind: 'indicator',
    pattern: object.pattern,
    patternType: object.pattern_type,
    ...(object.pattern_version === undefined ? {} : { patternVersion: object.pattern_version }),
    source,
    displayName: object.name ?? nameOf(object.pattern),
    ...(object.description === undefined ? {} : { description: object.description }),
    ...(object.confidence === undefined ? {} : { confidence: object.confidence }),
    labels: object.labels ?? [],
    threatTypes: object.indicator_types ?? [],
    validFrom: object.valid_from,
    ...(object.valid_until === undefined ? {} : { validUntil: object.valid_until }),
    ...(object.external_references === undefined
      ? {}
      : {
          externalReferences: object.external_references.map((r) => ({
            sourceName: r.source_name,
            ...(r.description === undefined ? {} : { description: r.description }),
            ...(r.url === undefined ? {} : { url: r.url }),
            ...(r.external_id === undefined ? {} : { externalId: r.external_id }),
          })),
        }),
  };
}

/**
 * `indicator--` and the UUIDv5 (RFC 9562 5.5) of `pattern:<pattern>` under threatlib's STIX namespace: the id of an
 * indicator given as a bare pattern.
 */
function patternIndicatorId(pattern: string): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(THREATLIB_STIX_NAMESPACE.replaceAll('-', ''), 'hex'))
    .update(`pattern:${pattern}`, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `indicator--${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The value a single-comparison pattern matches (`[domain-name:value = 'evil.example']`), else the pattern. */
function nameOf(pattern: string): string {
  const single = /^\[\s*[\w-]+:[\w.'-]+\s*=\s*'((?:[^'\\]|\\.)*)'\s*\]$/.exec(pattern);
  const name = single?.[1] === undefined ? pattern : single[1].replace(/\\(['\\])/g, '$1');
  return name.length > 256 ? `${name.slice(0, 255)}…` : name;
}
