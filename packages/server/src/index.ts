export { APIServer, type APIServerOptions } from './api-server.js';
export { Authenticator, type Principal, requiredScope, type ServerAuthentication } from './auth/authenticator.js';
export { hashPassword, verifyPassword } from './auth/password-hash.js';
export type { DashboardPwaOptions } from './dashboard/dashboard-assets.js';
export { PROBLEM_TYPES, type Problem, ProblemError } from './http/problem.js';
export { ServerMetrics } from './metrics/server-metrics.js';
export { type OpenApiOptions, openApiDocument } from './openapi/document.js';
export type { TaxiiOptions } from './taxii/taxii-options.js';
