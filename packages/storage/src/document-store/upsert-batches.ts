// The upserts of histories and campaigns, sent in commands of a bounded size, with a lost insert race applied again.
import { type AnyBulkWriteOperation, type Collection, type Document, MongoBulkWriteError } from 'mongodb';
import { onlyDuplicates, writeErrorsOf } from './driver-errors.js';

/**
 * Most update statements sent in one command. FerretDB 1.24 (SQLite) never answers an update command that modifies
 * 100 or more existing documents (the connection hangs until it is cut), which a batch re-seeing the indicators of an
 * earlier one does; 50 a command is far from that, and costs MongoDB a round trip per 50.
 */
const UPDATES_PER_COMMAND = 50;

/** Applies the upserts in order, {@link UPDATES_PER_COMMAND} to a command. */
export async function writeUpserts<T extends Document>(
  target: Collection<T>,
  operations: AnyBulkWriteOperation<T>[],
): Promise<void> {
  for (let from = 0; from < operations.length; from += UPDATES_PER_COMMAND) {
    const chunk = operations.slice(from, from + UPDATES_PER_COMMAND);
    try {
      await target.bulkWrite(chunk, { ordered: true });
    } catch (error) {
      // Two writers upserting the same new indicator (or campaign) at once: one insert loses the race on the
      // unique index, and the same update applied again now finds the document.
      if (!(error instanceof MongoBulkWriteError) || !onlyDuplicates(error)) throw error;
      const failedAt = Math.min(...writeErrorsOf(error).map((e) => e.index));
      await target.bulkWrite(chunk.slice(failedAt), { ordered: true });
    }
  }
}
