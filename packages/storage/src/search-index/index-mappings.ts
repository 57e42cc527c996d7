import type { estypes } from '@elastic/elasticsearch';

/** The type of a mapped field, as far as queries on it are concerned. */
export type FieldKind = 'keyword' | 'number' | 'date';

/**
 * The fields of a threat document that queries may name, with their kind: the documented search-index document, the
 * campaign a document belongs to, and when a stored threat record expires.
 */
export const THREAT_FIELDS: Readonly<Record<string, FieldKind>> = Object.freeze({
  indicator: 'keyword',
  threat_type: 'keyword',
  confidence: 'number',
  sources: 'keyword',
  '@timestamp': 'date',
  campaign: 'keyword',
  expires_at: 'date',
});

/** The fields of a campaign record that queries may name, with their kind. */
export const CAMPAIGN_FIELDS: Readonly<Record<string, FieldKind>> = Object.freeze({
  campaign: 'keyword',
  status: 'keyword',
  'shared_by.kind': 'keyword',
  'shared_by.value': 'keyword',
  indicators: 'keyword',
  indicator_count: 'number',
  first_seen: 'date',
  last_seen: 'date',
  sources: 'keyword',
  expires_at: 'date',
});

/**
 * The mapping of the daily threat indices. `dynamic: 'strict'`: a field the mapping does not name is
 * refused (with Elasticsearch's reason) rather than kept unsearchable, so a misspelt field never goes unnoticed.
 * `results` (the scan or correlation result of a stored threat record) and `extra` (a record's other fields) are kept
 * in `_source` as given and not indexed, so any shape is fine there.
 */
export const THREAT_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    indicator: { type: 'keyword' },
    threat_type: { type: 'keyword' },
    confidence: { type: 'float' },
    sources: { type: 'keyword' },
    '@timestamp': { type: 'date' },
    campaign: { type: 'keyword' },
    // Stored threat records (the storage integration): when they expire, for how long they were kept, what they say.
    expires_at: { type: 'date' },
    ttl: { type: 'double', index: false },
    results: { type: 'object', enabled: false },
    extra: { type: 'object', enabled: false },
  },
};

/**
 * The mapping of the campaigns index: one record per campaign (its `_id` a hash of the campaign id), grown by every
 * report of the campaign and kept until `expires_at`.
 */
export const CAMPAIGN_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    campaign: { type: 'keyword' },
    status: { type: 'keyword' },
    shared_by: { properties: { kind: { type: 'keyword' }, value: { type: 'keyword' } } },
    indicators: { type: 'keyword' },
    indicator_count: { type: 'integer' },
    first_seen: { type: 'date' },
    last_seen: { type: 'date' },
    sources: { type: 'keyword' },
    expires_at: { type: 'date' },
  },
};

/** The mapping of the indicator history index: one document per indicator, its `_id` a hash of the indicator. */
export const INDICATOR_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    indicator: { type: 'keyword' },
    type: { type: 'keyword' },
    first_seen: { type: 'date' },
    last_seen: { type: 'date' },
    times_seen: { type: 'long' },
    last_verdict: { type: 'keyword' },
    last_confidence: { type: 'float' },
    last_risk_score: { type: 'float' },
  },
};

/**
 * The mapping of the alert index. The alert and its deliveries are kept exactly as given (not indexed: whatever keys
 * their metadata and results hold); beside them the fields `list` filters, sorts and pages on.
 */
export const ALERT_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    time: { type: 'date' },
    seq: { type: 'keyword' },
    rank: { type: 'byte' },
    pending: { type: 'boolean' },
    alert: { type: 'object', enabled: false },
    deliveries: { type: 'object', enabled: false },
  },
};

/** The name of the index template that gives the daily indices of `base` their mapping and alias. */
export function templateName(base: string): string {
  return `threatlib-${base}`;
}

/**
 * The index template for the daily indices `<base>-*`: the threat mapping, and the alias `<base>` that searches go
 * through, so that an index joins the alias the moment a document creates it. Priority 200 puts it above
 * Elasticsearch's built-in templates (100), which would otherwise claim names such as `logs-*-*`.
 */
export function dailyIndexTemplate(base: string): estypes.IndicesPutIndexTemplateRequest {
  return {
    name: templateName(base),
    index_patterns: [`${base}-*`],
    priority: 200,
    template: { aliases: { [base]: {} }, mappings: THREAT_MAPPINGS },
    _meta: { managed_by: 'threatlib', description: `daily indices of ${base}, searched through the alias ${base}` },
  };
}
