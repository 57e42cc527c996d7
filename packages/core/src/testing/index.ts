// The `@threatlib/core/testing` entry: the compliance suites an integration package runs against its own
// implementations of core's contracts. They register vitest tests, so vitest (an optional peer dependency) loads only
// for their users.
export { alertStoreCompliance } from '../alerts/alert-store.test-suite.js';
