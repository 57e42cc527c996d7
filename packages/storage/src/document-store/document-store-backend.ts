import type { StorageBackend } from '../integration/storage-backend.js';
import { DocumentStoreIntegrationOptionsSchema } from './document-store-options.js';
import { DocumentStoreStorage } from './document-store-storage.js';

/** `integrations.storage: {type: 'mongodb', uri, database, collections?}`: the document store. */
export const documentStoreBackend: StorageBackend<typeof DocumentStoreIntegrationOptionsSchema> = {
  schema: DocumentStoreIntegrationOptionsSchema,
  create: ({ type: _type, ...options }, context) =>
    new DocumentStoreStorage(options, {
      logger: context.logger,
      clock: context.clock,
      optionsPath: context.optionsPath,
    }),
};
