// What both back ends' alert stores share: the limits, the checks of a page query, deliveries, size and cursors.
import {
  type AlertDelivery,
  AlertDeliverySchema,
  type AlertQuery,
  parseRecord,
  ValidationError,
} from '@threatlib/core';
import { querySeverityRank } from '@threatlib/core/integration';
import { z } from 'zod';

/** Largest page `list` and `pending` return. */
const MAX_PAGE = 500;
/** Largest alert kept, as JSON in UTF-8 (a MongoDB document holds at most 16 MiB). */
const MAX_ALERT_BYTES = 8 * 1024 * 1024;

const DeliveriesSchema = z.array(AlertDeliverySchema).max(1000);

/**
 * A page query checked: the page size within bounds, `minSeverity` as its rank, `severity` as the ranks it allows,
 * `since` a valid Date.
 */
export interface AlertPageQuery {
  limit: number;
  minRank: number | undefined;
  ranks: number[] | undefined;
  since: Date | undefined;
}

/**
 * Checks `list`/`pending`'s query.
 *
 * @throws {ValidationError} `Invalid alert query: minSeverity: ...`, `severity: ...` or `since: ...`.
 */
export function alertPageQuery(query: AlertQuery): AlertPageQuery {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_PAGE);
  const minRank = query.minSeverity === undefined ? undefined : querySeverityRank(query.minSeverity);
  const ranks =
    query.severity === undefined
      ? undefined
      : [
          ...new Set(
            (Array.isArray(query.severity) ? query.severity : [query.severity]).map((s) =>
              querySeverityRank(s, 'severity'),
            ),
          ),
        ];
  if (query.since !== undefined && (!(query.since instanceof Date) || Number.isNaN(query.since.getTime()))) {
    throw new ValidationError('alert query', [{ path: 'since', message: 'expected a valid Date' }]);
  }
  return { limit, minRank, ranks, since: query.since };
}

/** `updateDeliveries`' input checked (at most 1,000 deliveries, each as core's schema says) and within the size. */
export function parseDeliveries(deliveries: readonly AlertDelivery[]): AlertDelivery[] {
  const parsed = parseRecord(DeliveriesSchema, deliveries, 'alert deliveries');
  checkAlertSize(JSON.stringify(parsed), 'alert deliveries');
  return parsed;
}

/** Whether a delivery is still `pending` (what `pending()` lists). */
export function hasPending(deliveries: readonly AlertDelivery[]): boolean {
  return deliveries.some((delivery) => delivery.status === 'pending');
}

/**
 * Refuses an alert (or its deliveries) whose JSON is larger than {@link MAX_ALERT_BYTES}.
 *
 * @throws {ValidationError} `Invalid <subject>: <n> bytes as JSON, larger than the store keeps (...)`.
 */
export function checkAlertSize(json: string, subject: string): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes; count the bytes only when that bound is too high.
  if (json.length * 3 <= MAX_ALERT_BYTES) return;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_ALERT_BYTES) {
    throw new ValidationError(subject, [
      { path: '', message: `${bytes} bytes as JSON, larger than the store keeps (${MAX_ALERT_BYTES} bytes)` },
    ]);
  }
}

/** The error of `add` for an id the store holds already. */
export function alreadyStored(id: string): ValidationError {
  return new ValidationError('alert', [{ path: 'id', message: `an alert with id ${id} is already stored` }]);
}

/** The cursor after an alert of time `timeMs` and insertion order `seq`: `<time in base 36>.<seq>`. */
export function encodeAlertCursor(timeMs: number, seq: string): string {
  return `${timeMs.toString(36)}.${seq}`;
}

/**
 * Reads a cursor {@link encodeAlertCursor} made, its `seq` matching `seqPattern` (an anchored-free pattern of the
 * store's own sequence form).
 *
 * @throws {ValidationError} `Invalid alert query: cursor: not a cursor this store issued`.
 */
export function decodeAlertCursor(cursor: string, seqPattern: string): { time: number; seq: string } {
  const match = typeof cursor === 'string' ? new RegExp(`^(-?[0-9a-z]{1,12})\\.(${seqPattern})$`).exec(cursor) : null;
  const time = match ? Number.parseInt(match[1] as string, 36) : Number.NaN;
  if (!match || !Number.isSafeInteger(time)) {
    throw new ValidationError('alert query', [{ path: 'cursor', message: 'not a cursor this store issued' }]);
  }
  return { time, seq: match[2] as string };
}
