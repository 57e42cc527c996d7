import { ManualClock } from '@threatlib/core/testing';
import {
  describeWithFerretDB,
  dropDatabases,
  E2E_FERRETDB_URI,
  rawCount,
  recordCommands,
  uniqueDatabase,
} from '@threatlib/test-utils/ferretdb';
import { DocumentStoreStorage } from '../document-store/document-store-storage.js';
import { COMPLIANCE_EPOCH, type StorageComplianceTarget, storageCompliance } from './storage-compliance.test-suite.js';

async function documentStoreTarget(): Promise<StorageComplianceTarget> {
  const database = uniqueDatabase('compliance');
  const clock = new ManualClock(COMPLIANCE_EPOCH);
  const made: DocumentStoreStorage[] = [];
  const open = () => {
    const storage = new DocumentStoreStorage(
      {
        uri: E2E_FERRETDB_URI,
        database,
        collections: { threats: 'threats', campaigns: 'campaigns', indicators: 'indicators' },
      },
      { clock, driverOptions: { monitorCommands: true } },
    );
    made.push(storage);
    return storage;
  };
  const storage = open();
  const commands = recordCommands(storage.client);
  return {
    storage,
    clock,
    requestsSent: () => commands.length,
    query: (filter) => storage.query('threats', filter as object),
    storedThreatCount: () => rawCount(database, 'threats'),
    reopen: async () => open(),
    dispose: async () => {
      await Promise.all(made.map((store) => store.stop()));
      await dropDatabases([database]);
    },
  };
}

describeWithFerretDB('DocumentStoreStorage passes the storage compliance suite on FerretDB', () => {
  storageCompliance(documentStoreTarget);
});
