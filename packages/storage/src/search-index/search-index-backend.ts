import type { StorageBackend } from '../integration/storage-backend.js';
import { SearchIndexIntegrationOptionsSchema } from './search-index-options.js';
import { SearchIndexStorage } from './search-index-storage.js';

/** `integrations.storage: {type: 'elasticsearch', node, auth, indices?, retentionDays?}`: the search index. */
export const searchIndexBackend: StorageBackend<typeof SearchIndexIntegrationOptionsSchema> = {
  schema: SearchIndexIntegrationOptionsSchema,
  create: ({ type: _type, ...options }, context) =>
    new SearchIndexStorage(options, {
      logger: context.logger,
      clock: context.clock,
      optionsPath: context.optionsPath,
    }),
};
