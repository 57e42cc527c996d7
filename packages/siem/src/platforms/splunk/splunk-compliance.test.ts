import { describe } from 'vitest';
import { runSiemComplianceSuite } from '../../compliance/siem-compliance.test-suite.js';
import { splunkHarness } from '../../test-support/splunk-harness.js';

describe('siem_a (Splunk) on the Splunk emulator', () => {
  runSiemComplianceSuite(() => splunkHarness());
});

describe('siem_a (Splunk) with a HEC token that uses indexer acknowledgement, searching with oneshot', () => {
  runSiemComplianceSuite(async () => {
    const { SPLUNK_DEFAULTS } = await import('@threatlib/siem-emulator');
    const harness = await splunkHarness({ splunk: { hecTokens: { [SPLUNK_DEFAULTS.hecToken]: { ack: true } } } });
    harness.emulator.splunk.pendingAckPolls = 2;
    return { ...harness, options: { ...harness.options, searchMode: 'oneshot' } };
  });
});
