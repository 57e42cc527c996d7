import type { IndicatorType } from './indicator.js';

/**
 * The outcome of checking text against one kind of indicator: its type and normalised value, or why it was refused.
 * Checkers return this rather than throwing so that the caller decides how to word the final error.
 */
export type CheckResult =
  | { readonly ok: true; readonly type: IndicatorType; readonly value: string }
  | { readonly ok: false; readonly reason: string };

/** A successful {@link CheckResult}. */
export function accepted(type: IndicatorType, value: string): CheckResult {
  return { ok: true, type, value };
}

/** A failed {@link CheckResult}; `reason` completes the sentence "not a valid <type>: …". */
export function refused(reason: string): CheckResult {
  return { ok: false, reason };
}
