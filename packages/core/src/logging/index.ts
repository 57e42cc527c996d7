// The `@threatlib/core/logging` entry: the logger a client makes, for a program that wants the same one apart from a
// client (`createLogger(config.logging)`), its transports as classes, and RFC 5424 framing for packages that speak
// syslog. Node.js only: the file and syslog transports write files and open sockets. A client's own logger needs
// none of it; `Logger` and `silentLogger` are on the main entry.
export type { LogCategory } from './categories.js';
export {
  type CreateLoggerOptions,
  closeLogger,
  createLogger,
  flushLogger,
  logTransportStats,
  type PinoLogger,
} from './create-logger.js';
export type { LogFormat } from './formats.js';
export { formatRfc5424, octetCountingFrame, type SyslogFacilityName, type SyslogMessage } from './rfc5424.js';
export { FileTransport, type FileTransportOptions } from './transports/file-transport.js';
export type { LogEntry, LogSink } from './transports/log-sink.js';
export { SyslogTransport, type SyslogTransportOptions } from './transports/syslog-transport.js';
export { WebhookTransport, type WebhookTransportOptions } from './transports/webhook-transport.js';
