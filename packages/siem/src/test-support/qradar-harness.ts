import { QRADAR_DEFAULTS, type RunningSiemEmulator, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import type { SiemHarness } from '../compliance/siem-compliance.test-suite.js';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { parseLeef } from '../formats/leef-parser.js';
import { closedPort } from './closed-port.js';

/**
 * The QRadar emulator as a compliance harness (its syslog listener reading LEEF with the strict parser), with the
 * emulator itself for QRadar's own tests.
 */
export async function qradarHarness(
  emulatorOptions: Parameters<typeof startSiemEmulator>[0] = {},
): Promise<SiemHarness & { emulator: RunningSiemEmulator }> {
  const emulator = await startSiemEmulator({
    ...emulatorOptions,
    qradar: { parseLeef, ...emulatorOptions.qradar },
  });
  const down = await closedPort();
  const options: SiemConnectorOptions = {
    platform: 'siem_b',
    host: emulator.host,
    port: emulator.port,
    credentials: { token: QRADAR_DEFAULTS.token },
    tls: { ca: TEST_CA },
    syslog: { port: emulator.qradar.syslogTlsPort, hostname: 'threatlib-test' },
    enrichment: { pollInterval: 5 },
  };
  const wrongToken = '0badc0de-0000-4000-8000-000000000000';
  const events = (eventId: string) =>
    emulator.qradar.events.filter((event) => event.eventId === eventId && event.leefError === undefined);
  const values = (json: string | undefined) =>
    (JSON.parse(json ?? '[]') as { value: string }[]).map((indicator) => indicator.value);
  return {
    emulator,
    options,
    secrets: [QRADAR_DEFAULTS.token, QRADAR_DEFAULTS.password, wrongToken],
    badCredentials: { credentials: { token: wrongToken } },
    down: { port: down, syslog: { port: down } },
    async alerts() {
      return events('ThreatAlert').map((event) => ({
        title: event.properties.title ?? '',
        severity: event.properties.cat ?? '',
        indicators: values(event.properties.indicators),
      }));
    },
    async caseById(id) {
      const found = events('ThreatCase').find((event) => event.properties.caseId === id);
      return found && { title: found.properties.title ?? '', indicators: values(found.properties.indicators) };
    },
    failNext(count, fault) {
      emulator.failNext(count, fault, 'qradar');
    },
    hung: () => emulator.hung(),
    close: () => emulator.close(),
  };
}
