import type { Alert } from '@threatlib/core';

/** The bounds of one batch. */
export interface BatchLimits {
  maxBatchAlerts: number;
  /** Measured with the weight given (each alert's JSON by default); an item larger than this alone is a batch of one. */
  maxBatchBytes: number;
}

/** An alert's weight when nothing else is known: the UTF-8 bytes of its JSON. */
export function jsonBytes(alert: Alert): number {
  return Buffer.byteLength(JSON.stringify(alert));
}

/**
 * Splits `items`, in order, into the fewest consecutive batches within `limits`, each item weighing `bytesOf(item)`
 * (by default an alert's JSON).
 */
export function batchAlerts(alerts: readonly Alert[], limits: BatchLimits): Alert[][];
export function batchAlerts<T>(items: readonly T[], limits: BatchLimits, bytesOf: (item: T) => number): T[][];
export function batchAlerts<T>(
  items: readonly T[],
  limits: BatchLimits,
  bytesOf: (item: T) => number = jsonBytes as unknown as (item: T) => number,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && (current.length >= limits.maxBatchAlerts || bytes + size > limits.maxBatchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
