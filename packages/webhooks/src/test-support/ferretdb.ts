import { connect } from 'node:net';
import { beforeAll, describe, it } from 'vitest';

/** The FerretDB that `./dev services up` starts (e2e/services.d/ferretdb.sh): a MongoDB wire-protocol server. */
export const E2E_FERRETDB_URI = 'mongodb://127.0.0.1:27018';
const PORT = 27018;

const reachable = await new Promise<boolean>((resolve) => {
  const socket = connect({ host: '127.0.0.1', port: PORT });
  const done = (answer: boolean) => {
    socket.destroy();
    resolve(answer);
  };
  socket.setTimeout(1000, () => done(false));
  socket.once('error', () => done(false));
  socket.once('connect', () => done(true));
});

/**
 * `describe` for tests that need the real FerretDB: skipped, with the reason as the skipped test's name, when it is
 * unreachable and `THREATLIB_E2E` is unset; failing loudly when it is set.
 */
export function describeWithFerretDB(title: string, body: () => void): void {
  describe(title, () => {
    if (!reachable && !process.env.THREATLIB_E2E) {
      it.skip(`needs FerretDB at 127.0.0.1:${PORT} (start it with: ./dev services up; THREATLIB_E2E=1 fails instead)`);
      return;
    }
    beforeAll(() => {
      if (!reachable) throw new Error(`THREATLIB_E2E is set but FerretDB at 127.0.0.1:${PORT} does not answer`);
    });
    body();
  });
}

let databases = 0;

/** A database name no other test, run or process uses. */
export function uniqueDatabase(label: string): string {
  databases += 1;
  return `tl_wh_${label.slice(0, 16)}_${process.pid}_${Date.now().toString(36)}_${databases}`;
}
