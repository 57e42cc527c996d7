import { describeWithServices, probeService } from '@threatlib/core/testing';

/** The FerretDB that `./dev services up` starts (e2e/services.d/ferretdb.sh): a MongoDB wire-protocol server. */
export const E2E_FERRETDB_URI = 'mongodb://127.0.0.1:27018';
const PORT = 27018;

const ferretdb = await probeService({ name: 'ferretdb', port: PORT });

/**
 * `describe` for tests that need the real FerretDB: skipped, with the reason as the skipped test's name, when it is
 * unreachable and `THREATLIB_E2E` is unset; failing loudly when it is set.
 */
export function describeWithFerretDB(title: string, body: () => void): void {
  describeWithServices([ferretdb], title, body);
}

let databases = 0;

/** A database name no other test, run or process uses. */
export function uniqueDatabase(label: string): string {
  databases += 1;
  return `tl_wh_${label.slice(0, 16)}_${process.pid}_${Date.now().toString(36)}_${databases}`;
}
