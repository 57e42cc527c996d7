import { createRequire } from 'node:module';
import type { pino as Pino } from 'pino';
import type { LineDestination } from './transports/stream-sink.js';

/*
 * What logging takes from Node.js (chosen by package.json `imports`, `#logging-platform`, condition `default`):
 * pino and the ECS format loaded on first use with `require` (a client given its own logger never pays for them),
 * stderr, and the transports that need files and sockets. `platform.browser.ts` is the page's side.
 */

export { FileTransport } from './transports/file-transport.js';
export { SyslogTransport } from './transports/syslog-transport.js';
export { WebhookTransport } from './transports/webhook-transport.js';

const load = createRequire(import.meta.url);

/** pino's factory, loaded on first use. */
export function loadPino(): typeof Pino {
  return (load('pino') as { pino: typeof Pino }).pino;
}

/** `@elastic/ecs-pino-format`, loaded on first use (only the `structured` format needs it). */
export function loadEcsFormat(): typeof import('@elastic/ecs-pino-format') {
  return load('@elastic/ecs-pino-format') as typeof import('@elastic/ecs-pino-format');
}

/** Where `logging.stderr` lines go: the process's stderr. */
export function standardError(): LineDestination {
  return process.stderr;
}
