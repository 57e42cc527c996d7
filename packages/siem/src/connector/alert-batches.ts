import type { Alert } from '@threatlib/core';

/** The bounds of one batch. */
export interface BatchLimits {
  maxBatchAlerts: number;
  /** Measured on each alert's JSON; an alert larger than this alone makes a batch of one. */
  maxBatchBytes: number;
}

/** Splits `alerts`, in order, into the fewest consecutive batches within `limits`. */
export function batchAlerts(alerts: readonly Alert[], limits: BatchLimits): Alert[][] {
  const batches: Alert[][] = [];
  let current: Alert[] = [];
  let bytes = 0;
  for (const alert of alerts) {
    const size = Buffer.byteLength(JSON.stringify(alert));
    if (current.length > 0 && (current.length >= limits.maxBatchAlerts || bytes + size > limits.maxBatchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(alert);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
