import type { LoggerOptions } from 'pino';
import { loadEcsFormat } from '#logging-platform';
import { escapeControlCharacters, lineSafeJson } from '../text/control-characters.js';
import { levelName } from './log-levels.js';

/** The value of `logging.format`. */
export type LogFormat = 'json' | 'text' | 'structured';

/** `service.name` in structured lines, and pino's `name` in JSON lines. */
const SERVICE_NAME = 'threatlib';

/**
 * pino options for a format. `json` is pino's own line; `structured` renames fields to the Elastic Common Schema
 * (`@timestamp`, `log.level`, `message`, `ecs.version`, `service.name`, `error.type`/`error.message`/
 * `error.stack_trace`, and `event.dataset` = `threatlib.<category>`) with `@elastic/ecs-pino-format`; `text` is
 * written as JSON too and rendered by {@link formatText} where it leaves the process, so that every destination
 * can still filter on fields.
 */
export function pinoOptionsFor(format: LogFormat): LoggerOptions {
  if (format !== 'structured') return { name: SERVICE_NAME };
  // Loaded only for this format; eventDataset '' keeps the library from binding a fixed `event.dataset`, which
  // would appear twice in a line once a category sets its own.
  const { ecsFormat } = loadEcsFormat();
  const ecs = ecsFormat({ apmIntegration: false, serviceName: SERVICE_NAME, eventDataset: '', convertReqRes: true });
  const log = ecs.formatters?.log;
  return {
    ...ecs,
    formatters: {
      ...ecs.formatters,
      log(obj) {
        const out = log ? log(obj) : obj;
        if (typeof out.category === 'string') out['event.dataset'] = `${SERVICE_NAME}.${out.category}`;
        return out;
      },
    },
  };
}

/** Fields {@link formatText} shows in their own place, or not at all. */
const TEXT_SKIPPED = new Set([
  'level',
  'time',
  'msg',
  'message',
  'pid',
  'hostname',
  'name',
  'category',
  'v',
  '@timestamp',
  'log.level',
  'log.logger',
  'ecs.version',
  'service.name',
  'event.dataset',
  'process.pid',
  'host.hostname',
]);

// No whitespace, quote, `=`, backslash, control or separator character (`\s` has U+2028 and U+2029, `\p{Cc}` NEL).
const BARE_VALUE = /^[^\s"=\\\p{Cc}]+$/u;

/**
 * One log record as a line for people: `2026-01-01T10:00:00.000Z WARN  [feed] message key=value ...`. No colours:
 * the same line goes to files and syslog. Strings with spaces are quoted, objects are JSON, and an error shows as
 * `err="TypeError: message"` (its stack stays in the JSON formats). Every control and line-separator character is
 * escaped (`\n`, `\u0000`, `\u2028`; see `escapeControlCharacters` and `lineSafeJson`): one record, one line, for
 * every reader.
 */
export function formatText(record: Record<string, unknown>): string {
  const time = record.time ?? record['@timestamp'];
  const when = typeof time === 'number' || typeof time === 'string' ? new Date(time).toISOString() : '-';
  const level =
    typeof record.level === 'number'
      ? levelName(record.level)
      : typeof record['log.level'] === 'string'
        ? record['log.level']
        : 'info';
  const message = record.msg ?? record.message;
  let line = `${when} ${level.toUpperCase().padEnd(5)}`;
  if (typeof record.category === 'string') line += ` [${escapeControlCharacters(record.category)}]`;
  if (message !== undefined && message !== '') line += ` ${escapeControlCharacters(String(message))}`;
  for (const [key, value] of Object.entries(record)) {
    if (TEXT_SKIPPED.has(key) || value === undefined) continue;
    line += ` ${escapeControlCharacters(key)}=${textValue(key, value)}`;
  }
  return line;
}

function textValue(key: string, value: unknown): string {
  if ((key === 'err' || key === 'error') && typeof value === 'object' && value !== null) {
    const { type, message } = value as { type?: unknown; message?: unknown };
    if (typeof message === 'string') {
      return lineSafeJson(JSON.stringify(`${typeof type === 'string' ? `${type}: ` : ''}${message}`));
    }
  }
  if (typeof value === 'string') return BARE_VALUE.test(value) ? value : lineSafeJson(JSON.stringify(value));
  if (typeof value === 'object' && value !== null) return lineSafeJson(JSON.stringify(value));
  return String(value);
}
