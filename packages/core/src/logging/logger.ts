/**
 * The logging interface threatlib writes to. It is the subset of pino's API the library uses, so a pino logger
 * (or fastify's `request.log`) can be passed as it is; any object with these four methods works.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything; used when `logging.enabled` is false. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
