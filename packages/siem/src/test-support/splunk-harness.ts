import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import type { SiemHarness } from '../compliance/siem-compliance.test-suite.js';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { closedPort } from './closed-port.js';

/** The Splunk emulator as a compliance harness, with the emulator itself for Splunk's own tests. */
export async function splunkHarness(
  emulatorOptions: Parameters<typeof startSiemEmulator>[0] = {},
): Promise<SiemHarness & { emulator: RunningSiemEmulator }> {
  const emulator = await startSiemEmulator(emulatorOptions);
  const down = await closedPort();
  const options: SiemConnectorOptions = {
    platform: 'siem_a',
    host: emulator.host,
    port: emulator.port,
    credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
    hec: { token: SPLUNK_DEFAULTS.hecToken, port: emulator.port, ackInterval: 5 },
    tls: { ca: TEST_CA },
  };
  const wrongToken = '00000000-dead-beef-0000-000000000000';
  const wrongPassword = 'not-the-password-7d2e';
  return {
    emulator,
    options,
    secrets: [SPLUNK_DEFAULTS.hecToken, SPLUNK_DEFAULTS.password, wrongToken, wrongPassword],
    badCredentials: {
      credentials: { username: SPLUNK_DEFAULTS.username, password: wrongPassword },
      hec: { token: wrongToken, port: emulator.port },
    },
    down: { port: down, hec: { token: SPLUNK_DEFAULTS.hecToken, port: down } },
    async alerts() {
      return emulator.splunk.events
        .filter((e) => e.sourcetype === 'threatlib:alert')
        .map((e) => {
          const event = e.event as { title: string; severity: string; indicators: { value: string }[] };
          return { title: event.title, severity: event.severity, indicators: event.indicators.map((i) => i.value) };
        });
    },
    async caseById(id) {
      const found = emulator.splunk.events.find(
        (e) => e.index === 'notable' && (e.event as { case_id?: string }).case_id === id,
      );
      if (!found) return undefined;
      const event = found.event as { rule_title: string; indicators: { value: string }[] };
      return { title: event.rule_title, indicators: event.indicators.map((i) => i.value) };
    },
    failNext(count, fault) {
      emulator.failNext(count, fault, 'splunk');
    },
    hung: () => emulator.hung(),
    close: () => emulator.close(),
  };
}
