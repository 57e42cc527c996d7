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
export function batchAlerts<T>(items: readonly T[], limits: BatchLimits, bytesOf?: (item: T) => number): T[][] {
  return [...batchesOf(items, limits, bytesOf ?? (jsonBytes as unknown as (item: T) => number))];
}

/**
 * The batches of {@link batchAlerts}, made as they are asked for: an item is weighed only when the batch before it
 * is full, so that a caller can send a batch before weighing (and making) the next ones. The item that does not fit
 * in a batch has been weighed when that batch is yielded.
 */
export function* batchesOf<T>(items: Iterable<T>, limits: BatchLimits, bytesOf: (item: T) => number): Generator<T[]> {
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && (current.length >= limits.maxBatchAlerts || bytes + size > limits.maxBatchBytes)) {
      yield current;
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) yield current;
}
