// The `@threatlib/core/testing` entry: the compliance suites an integration package runs against its own
// implementations of core's contracts, and the helpers tests share (a clock moved by hand). The suites register vitest
// tests, so vitest (an optional peer dependency) loads only for users of this entry.
export { alertStoreCompliance } from '../alerts/alert-store.test-suite.js';
export { ManualClock } from '../scheduler/clock.js';
