// The `@threatlib/core/http-server` entry: the hardening of an HTTP server an integration runs itself (the REST
// server, a webhook receiver): a cap on each client's connections, and the timeouts that keep slow clients from
// holding them. Node.js only.
export {
  type ConnectionGuardOptions,
  guardConnections,
  type RefusedConnections,
} from './connection-guard.js';
export { SERVER_TIMEOUT_DEFAULTS, type ServerTimeouts, serverTimeoutOptions } from './server-timeouts.js';
