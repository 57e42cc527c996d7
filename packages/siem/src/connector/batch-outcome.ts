/** How one batch of a `sendAlerts` call ended. */
export interface BatchOutcome {
  /** The batch's number, from 1, in the order of the alerts. */
  batch: number;
  /** Position of its first alert in the `alerts` given (from 0). */
  first: number;
  /** Position of its last alert in the `alerts` given. */
  last: number;
  /** `delivered`: the SIEM accepted it; `failed`: its attempts ran out; `not sent`: never started. */
  status: 'delivered' | 'failed' | 'not sent';
  /** How many alerts the SIEM accepted, when delivered. */
  accepted?: number;
  /** Why it failed (the error's message), when it failed. */
  error?: string;
}

/**
 * What a rejected `sendAlerts` call did, for its error's message: how many batches were delivered, failed and not
 * sent, each with its numbers (`2 of 20 batches failed (3, 7); 15 delivered (1-2, 4-6, 8-17); 3 not sent (18-20)`).
 */
export function describeOutcomes(outcomes: readonly BatchOutcome[]): string {
  const numbers = (status: BatchOutcome['status']) => outcomes.filter((o) => o.status === status).map((o) => o.batch);
  const failed = numbers('failed');
  const batches = outcomes.length === 1 ? 'batch' : 'batches';
  const parts = [`${failed.length} of ${outcomes.length} ${batches} failed (${ranges(failed)})`];
  const delivered = numbers('delivered');
  if (delivered.length > 0) parts.push(`${delivered.length} delivered (${ranges(delivered)})`);
  const notSent = numbers('not sent');
  if (notSent.length > 0) parts.push(`${notSent.length} not sent (${ranges(notSent)})`);
  return parts.join('; ');
}

/** `1, 2, 3, 5, 7, 8` as `1-3, 5, 7-8`. */
function ranges(sorted: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}
