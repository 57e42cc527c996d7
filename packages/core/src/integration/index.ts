// The `@threatlib/core/integration` entry: what an integration package builds with, apart from what the client's
// users call. For now the hardening of an HTTP server an integration runs itself (the REST server, a webhook
// receiver): a cap on each client's connections and the timeouts that keep slow clients from holding them.
export {
  type ConnectionGuardOptions,
  guardConnections,
  type RefusedConnections,
} from '../http-server/connection-guard.js';
export { SERVER_TIMEOUT_DEFAULTS, type ServerTimeouts, serverTimeoutOptions } from '../http-server/server-timeouts.js';
