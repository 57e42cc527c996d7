import { formatText } from '../formats.js';
import type { LogEntry } from './log-sink.js';

/** A log entry as the router would hand it to a transport, for tests that drive a transport directly. */
export function entryOf(record: Record<string, unknown>): LogEntry {
  const full: Record<string, unknown> = { level: 30, time: Date.now(), ...record };
  const line = JSON.stringify(full);
  return {
    level: full.level as number,
    category: typeof full.category === 'string' ? full.category : undefined,
    line,
    record: () => full,
    text: () => formatText(full),
  };
}
