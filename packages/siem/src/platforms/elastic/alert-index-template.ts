// The index template of the alert index: explicit mappings of the ECS fields `ecsAlertDocument` writes. Only field
// types of Elasticsearch's core (keyword, text, ip, date, long, float) and `flattened` are used, so the template
// installs on every 8.x cluster whatever modules it has. ECS maps url.full as `wildcard` (an X-Pack module); keyword
// keeps exact matching, which is what enrichment does.
// https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-indices-put-index-template
// https://www.elastic.co/docs/reference/ecs/ecs-threat (field types)
// https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/flattened

const keyword = { type: 'keyword', ignore_above: 1024 } as const;
const date = { type: 'date' } as const;

/** The `threat.indicator` mapping (also what enrichment's filter fields refer to). */
const INDICATOR_PROPERTIES = {
  type: keyword,
  ip: { type: 'ip' },
  url: { properties: { full: { type: 'keyword', ignore_above: 8192 }, domain: keyword } },
  file: { properties: { hash: { properties: { md5: keyword, sha1: keyword, sha256: keyword } } } },
  email: { properties: { address: keyword } },
  confidence: keyword,
  provider: keyword,
} as const;

/** The mappings of an alert index. */
const ALERT_MAPPINGS = {
  // Only the fields below are indexed; anything else a pipeline adds stays in _source without growing the mapping.
  dynamic: false,
  properties: {
    '@timestamp': date,
    ecs: { properties: { version: keyword } },
    message: { type: 'text' },
    tags: keyword,
    event: {
      properties: {
        kind: keyword,
        category: keyword,
        type: keyword,
        id: keyword,
        severity: { type: 'long' },
        risk_score: { type: 'float' },
        created: date,
        module: keyword,
        dataset: keyword,
        provider: keyword,
      },
    },
    rule: { properties: { name: keyword } },
    threat: { properties: { indicator: { properties: INDICATOR_PROPERTIES } } },
    related: { properties: { ip: { type: 'ip' }, hosts: keyword, hash: keyword } },
    threatlib: {
      properties: {
        alert: { properties: { severity: keyword, source: keyword, description: { type: 'text' } } },
        metadata: { type: 'flattened' },
      },
    },
  },
} as const;

/** The body of `PUT _index_template/<index>`: the mappings above for exactly `index`. */
export function alertIndexTemplate(index: string): Record<string, unknown> {
  return {
    index_patterns: [index],
    // Above the built-in templates' priorities (100 to 500 cover logs-*-*, metrics-*-*...), which never match this
    // exact name anyway; high enough that a user's catch-all template does not take precedence.
    priority: 200,
    template: { mappings: ALERT_MAPPINGS },
    _meta: { managed_by: 'threatlib', description: 'Alerts sent by @threatlib/siem (ECS documents)' },
  };
}
