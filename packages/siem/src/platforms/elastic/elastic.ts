import type { PlatformDefinition } from '../platform.js';
import { ELASTIC_OPTIONS, ELASTICSEARCH_PORT } from './elastic-options.js';
import { ElasticPlatform } from './elastic-platform.js';
import { type ElasticsearchSdk, loadElasticsearchSdk } from './elasticsearch-sdk.js';

/**
 * `siem_c`, Elastic Security: alerts as ECS documents through Elasticsearch's `_bulk` API, enrichment by one search
 * with `min`/`max` aggregations, cases through Kibana's Cases API. `port` is Elasticsearch's (default 9200);
 * Kibana is `kibana: {host, port}` (default: `host`, 5601). Credentials are basic authentication or an API key.
 *
 * @example
 * ```ts
 * const siem = new SIEMConnector({
 *   platform: 'siem_c', host: 'es.example.com', port: 9200,
 *   credentials: { username: 'svc-threatlib', password: process.env.ES_PASSWORD },
 *   kibana: { host: 'kibana.example.com' },
 *   timeout: 30000, retries: 3,
 * });
 * ```
 */
export const elastic: PlatformDefinition<typeof ELASTIC_OPTIONS, ElasticsearchSdk> = {
  id: 'siem_c',
  vendor: 'Elastic',
  status: 'production',
  defaultPort: ELASTICSEARCH_PORT,
  optionsShape: ELASTIC_OPTIONS,
  loadSdk: (_options, at) => loadElasticsearchSdk(at),
  create: (settings, elasticsearch) => new ElasticPlatform(settings, elasticsearch),
};
