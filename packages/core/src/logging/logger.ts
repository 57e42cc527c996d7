/**
 * The logging interface threatlib writes to. It is the subset of pino's API the library uses, so a pino logger
 * (or fastify's `request.log`) can be passed as it is; any object with these four methods works. `child`, when
 * present, is used to give each subsystem a logger whose lines carry its `category` (see `withCategory`).
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child?(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything; its children are itself. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
