import { describe } from 'vitest';
import { runSiemComplianceSuite } from '../../compliance/siem-compliance.test-suite.js';
import { qradarHarness } from '../../test-support/qradar-harness.js';

describe('siem_b (QRadar) on the QRadar emulator, LEEF 2.0 over TLS syslog', () => {
  runSiemComplianceSuite(() => qradarHarness());
});

describe('siem_b (QRadar) with basic authentication, LEEF 1.0 over plain TCP syslog with line-feed framing', () => {
  runSiemComplianceSuite(async () => {
    const { QRADAR_DEFAULTS } = await import('@threatlib/siem-emulator');
    const harness = await qradarHarness();
    return {
      ...harness,
      options: {
        ...harness.options,
        credentials: { username: QRADAR_DEFAULTS.username, password: QRADAR_DEFAULTS.password },
        leefVersion: '1.0',
        syslog: { port: harness.emulator.qradar.syslogPort, protocol: 'tcp', hostname: 'threatlib-test' },
      },
      badCredentials: { credentials: { username: QRADAR_DEFAULTS.username, password: 'not-the-password-31c' } },
      secrets: [...harness.secrets, 'not-the-password-31c'],
    };
  });
});
