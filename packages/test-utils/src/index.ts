// `@threatlib/test-utils`: what the tests of several packages share and no user needs. The e2e services' harnesses
// are subpaths of their own (`./elasticsearch`, `./ferretdb`, `./rsyslog`): each probes its server when imported, so
// a test file pays only for the servers it names. What third-party plugin authors use (`describeWithServices`, the
// compliance suites) stays published in `@threatlib/core/testing`.
export { eventually } from './eventually.js';
export { createTestPki, type TestPki } from './tls/test-pki.js';
export { trustInThisProcess } from './tls/trust-in-this-process.js';
