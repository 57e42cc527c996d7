// In the page of a browser test: fails when the page asked for another origin (the guard of origin-guard.ts refused
// the request; this says which, since the code that made it may have swallowed the network error).
/// <reference path="./browser-commands.d.ts" />
import { commands } from 'vitest/browser';

/** Throws, naming every URL, when a request of this page to another origin was refused since the last check. */
export async function assertNoRefusedRequests(): Promise<void> {
  const refused = await commands.takeRefusedRequests();
  if (refused.length === 0) return;
  throw new Error(
    `the page asked for another origin (refused; nothing outside the machine is fetched): ${refused.join(', ')}`,
  );
}
