// What the search index makes at start: the daily threat indices' template and alias, and the single indices
// (campaigns, indicators, alerts) with their mappings, each checked to be threatlib's own.
import type { Client, estypes } from '@elastic/elasticsearch';
import { StorageError } from '../errors/storage-error.js';
import { runRequest } from './elasticsearch-errors.js';
import {
  ALERT_MAPPINGS,
  CAMPAIGN_MAPPINGS,
  dailyIndexTemplate,
  INDICATOR_MAPPINGS,
  THREAT_MAPPINGS,
} from './index-mappings.js';
import type { ResolvedSearchIndexOptions } from './search-index-options.js';

/**
 * Checks that the cluster answers, that the alias of the daily threat indices is free, puts their index template
 * (and the fields added since on the indices made before), and makes or checks the single indices.
 *
 * @throws {StorageError} when the cluster cannot be reached or a configured name is taken by an index threatlib did not
 *   make.
 */
export async function prepareIndices(client: Client, indices: ResolvedSearchIndexOptions['indices']): Promise<void> {
  await runRequest('connect', undefined, () => client.cluster.health({}));
  // The alias of the daily threat indices must be free: an index under that name would make every one of them fail.
  const taken = await runRequest('connect', 'threats', () =>
    client.indices.resolveIndex({ name: indices.threats, expand_wildcards: 'all' }, { ignore: [404] }),
  );
  if ((taken.indices ?? []).some((index) => index.name === indices.threats)) {
    throw new StorageError(
      'elasticsearch',
      'connect',
      `indices.threats: "${indices.threats}" is an existing index; the store keeps threats in daily indices "${indices.threats}-YYYY.MM.DD" under the alias "${indices.threats}", so that name must be free (pick another, or delete that index)`,
      { target: 'threats', isRetryable: false },
    );
  }
  await runRequest('connect', 'threats', () => client.indices.putIndexTemplate(dailyIndexTemplate(indices.threats)));
  // Daily indices made under an earlier template (the alias holds only those) gain the fields added since.
  await runRequest('connect', 'threats', () =>
    client.indices.putMapping(
      { index: indices.threats, properties: THREAT_MAPPINGS.properties ?? {} },
      { ignore: [404] },
    ),
  );
  await ensureIndex(client, indices, 'campaigns', CAMPAIGN_MAPPINGS);
  await ensureIndex(client, indices, 'indicators', INDICATOR_MAPPINGS);
  await ensureIndex(client, indices, 'alerts', ALERT_MAPPINGS);
}

/** Makes a single index with its mapping, or checks that the one there was made by threatlib for this purpose. */
async function ensureIndex(
  client: Client,
  indices: ResolvedSearchIndexOptions['indices'],
  key: 'campaigns' | 'indicators' | 'alerts',
  mappings: estypes.MappingTypeMapping,
): Promise<void> {
  const index = indices[key];
  const meta = { managed_by: 'threatlib', kind: key };
  await runRequest('connect', key, () =>
    client.indices.create({ index, mappings: { ...mappings, _meta: meta } }, { ignore: [400] }),
  );
  const mapping = await runRequest('connect', key, () => client.indices.getMapping({ index }));
  const found = Object.values(mapping)[0]?.mappings?._meta as Record<string, unknown> | undefined;
  if (found?.managed_by !== 'threatlib' || found.kind !== key) {
    throw new StorageError(
      'elasticsearch',
      'connect',
      `indices.${key}: the index "${index}" exists and was not made by threatlib for ${key}; pick another name`,
      { target: key, isRetryable: false },
    );
  }
  // An index made by an earlier version gains the fields added since (adding fields is all a mapping update may do).
  await runRequest('connect', key, () => client.indices.putMapping({ index, properties: mappings.properties ?? {} }));
}
