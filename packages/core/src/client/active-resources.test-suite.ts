/**
 * What tests use to show that a client leaves nothing open: the libuv resources active now (sockets, timers, files),
 * and those beyond a baseline taken before the client existed.
 */

/** The kinds of the resources active now, sorted (one entry per resource). */
export function activeResources(): string[] {
  return process.getActiveResourcesInfo().sort();
}

/** Resources active now beyond those of `baseline` (a baseline timer that has since fired is not "extra"). */
export function extraResources(baseline: readonly string[]): string[] {
  const left = [...baseline];
  return activeResources().filter((r) => {
    const i = left.indexOf(r);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

/** Closed handles leave the list once libuv has run their close callbacks: one turn of the loop. */
export async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}
