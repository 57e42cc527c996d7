import type { Alert } from '@threatlib/core';
import { cefEventForAlert } from './alert-cef.js';
import { jsonForAlert } from './alert-json.js';
import { type LeefAlertOptions, leefEventForAlert } from './alert-leef.js';
import { formatCef } from './cef.js';
import { formatLeef } from './leef.js';

/** The formats `enterprise.siemIntegration.format` takes. */
export const EVENT_FORMATS = ['json', 'cef', 'leef'] as const;

/** One of {@link EVENT_FORMATS}. */
export type EventFormat = (typeof EVENT_FORMATS)[number];

/**
 * An alert as one event line in `format`: JSON (`jsonForAlert`), CEF (`cefEventForAlert`) or LEEF
 * (`leefEventForAlert`, with `leef`'s version and delimiter).
 *
 * @throws {EventFormatError} when the event cannot be written (a LEEF delimiter that cannot be one, an indicator value
 *   that is not one indicator of its type).
 */
export function formatAlert(alert: Alert, format: EventFormat, leef: LeefAlertOptions = {}): string {
  if (format === 'cef') return formatCef(cefEventForAlert(alert));
  if (format === 'leef') return formatLeef(leefEventForAlert(alert, leef));
  return jsonForAlert(alert);
}
