// What a check of every-option.test.ts is: an option observed at its default and at another value, an option with one
// accepted value, or an option another package's test shows.
import type { ThreatConfig } from '../schema.js';

/** A configuration fragment, or a function making it once the local servers listen (their URLs are known then). */
export type Fragment = object | (() => object);
export const resolve = (fragment: Fragment): object => (typeof fragment === 'function' ? fragment() : fragment);

/** Observed with `without`, then with `with` laid over it: the two observations must differ. */
export interface Effect {
  kind: 'effect';
  without: Fragment;
  with: Fragment;
  observe: (config: ThreatConfig) => Promise<unknown>;
  /** A server the check needs (the e2e Redis). */
  needs?: 'redis';
}

/** The option has one value: anything else is refused by the schema. */
interface OnlyValue {
  kind: 'only';
  with: Fragment;
}

/** The option takes effect in another package, whose test shows it; that test file must name it. */
interface Elsewhere {
  kind: 'elsewhere';
  file: string;
  mentions: string[];
}

export type Check = Effect | OnlyValue | Elsewhere;

export const effect = (
  change: Fragment,
  observe: Effect['observe'],
  without: Fragment = {},
  needs?: Effect['needs'],
): Effect => ({
  kind: 'effect',
  with: change,
  without,
  observe,
  ...(needs ? { needs } : {}),
});
export const elsewhere = (file: string, ...mentions: string[]): Elsewhere => ({ kind: 'elsewhere', file, mentions });
