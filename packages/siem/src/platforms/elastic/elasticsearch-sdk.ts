import type * as Elasticsearch from '@elastic/elasticsearch';
import { loadOptionalPeers } from '@threatlib/core/integration';

/** `@elastic/elasticsearch`, an optional peer dependency of `@threatlib/siem` that only `siem_c` uses. */
export type ElasticsearchSdk = typeof Elasticsearch;

/**
 * Loads `@elastic/elasticsearch` for a `siem_c` connector (never at import of the package).
 *
 * @throws {ConfigurationError} naming the package and the command that installs it, when it is not installed.
 */
export function loadElasticsearchSdk(at: (option: string) => string): ElasticsearchSdk {
  const [elasticsearch] = loadOptionalPeers<[ElasticsearchSdk]>(['@elastic/elasticsearch'], {
    from: import.meta.url,
    path: at('platform'),
    neededFor: 'siem_c (Elastic)',
  });
  return elasticsearch;
}
