// The `@threatlib/core/testing` entry: the compliance suites an integration package runs against its own
// implementations of core's contracts, and the helpers tests share (a clock moved by hand, `describe` for tests that
// need a real server, the checks that no secret shows). They register vitest tests, so vitest (an optional peer
// dependency) loads only for users of this entry.
export { alertStoreCompliance } from '../alerts/alert-store.test-suite.js';
export { ManualClock } from '../scheduler/clock.js';
export { expectNoSecretIn, expectNoSecretShown } from '../security/secret-leaks.test-suite.js';
export {
  describeWithServices,
  type E2EService,
  type ProbedService,
  portOpen,
  probeService,
} from './e2e-services.js';
