import { describe } from 'vitest';
import { runSiemComplianceSuite } from '../../compliance/siem-compliance.test-suite.js';
import { sentinelHarness } from '../../test-support/sentinel-harness.js';

describe('siem_d (Microsoft Sentinel) on the Sentinel emulator, through the Azure SDKs', () => {
  runSiemComplianceSuite(() => sentinelHarness());
});
