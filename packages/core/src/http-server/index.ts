// The `@threatlib/core/http-server` entry: the hardening of an HTTP server an integration runs itself (the REST
// server, a webhook receiver): a cap on each client's connections, the timeouts that keep slow clients from holding
// them, the security headers of every answer, and the problem documents (RFC 9457) it answers errors with, those of
// requests node's HTTP parser refused included. Node.js only.
export { type ClientError, problemClientErrorHandler } from './client-errors.js';
export {
  type ConnectionGuardOptions,
  guardConnections,
  type RefusedConnections,
} from './connection-guard.js';
export { HTTP_PROBLEM_TYPES, type Problem, ProblemError } from './problem.js';
export { type CspDirectives, securityHeaders } from './security-headers.js';
export { SERVER_TIMEOUT_DEFAULTS, type ServerTimeouts, serverTimeoutOptions } from './server-timeouts.js';
