import { type RunningSiemEmulator, SENTINEL_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import type { SiemHarness } from '../compliance/siem-compliance.test-suite.js';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { closedPort } from './closed-port.js';

/**
 * The Sentinel emulator as a compliance harness, with the emulator itself for Sentinel's own tests. The connector
 * reaches every Azure API at the emulator: the data collection endpoint as `host`/`port`, Entra ID, Log Analytics
 * and ARM through their endpoint options.
 */
export async function sentinelHarness(
  emulatorOptions: Parameters<typeof startSiemEmulator>[0] = {},
): Promise<
  SiemHarness & { emulator: RunningSiemEmulator; endpoints: (port: number) => Partial<SiemConnectorOptions> }
> {
  const emulator = await startSiemEmulator(emulatorOptions);
  const down = await closedPort();
  const d = SENTINEL_DEFAULTS;
  const endpoints = (port: number): Partial<SiemConnectorOptions> => ({
    port,
    authorityHost: `https://${emulator.host}:${port}`,
    logAnalyticsEndpoint: `https://${emulator.host}:${port}`,
    armEndpoint: `https://${emulator.host}:${port}`,
  });
  const options: SiemConnectorOptions = {
    platform: 'siem_d',
    host: emulator.host,
    credentials: { username: d.clientId, password: d.clientSecret },
    tenantId: d.tenantId,
    dataCollectionRuleId: d.dataCollectionRuleId,
    workspaceId: d.workspaceId,
    subscriptionId: d.subscriptionId,
    resourceGroup: d.resourceGroup,
    workspaceName: d.workspaceName,
    ...endpoints(emulator.port),
    tls: { ca: TEST_CA },
  };
  const wrongSecret = 'not~the~client~secret~5f3a';
  return {
    emulator,
    endpoints,
    options,
    secrets: [d.clientSecret, wrongSecret],
    badCredentials: { credentials: { username: d.clientId, password: wrongSecret } },
    down: endpoints(down),
    async alerts() {
      return emulator.sentinel.rows().map((row) => ({
        title: String(row.Title),
        severity: String(row.Severity),
        indicators: (row.Indicators as Array<{ value: string }>).map((i) => i.value),
      }));
    },
    async caseById(id) {
      const incident = emulator.sentinel.incidents.get(id.toLowerCase());
      if (!incident) return undefined;
      const description = String(incident.properties.description ?? '');
      const indicators = [...description.matchAll(/^- \S+ (\S+)(?: \(source: [^)]*\))?$/gm)].map((m) => m[1] as string);
      return { title: String(incident.properties.title), indicators };
    },
    failNext(count, fault) {
      emulator.failNext(count, fault, 'sentinel');
    },
    hung: () => emulator.hung(),
    close: () => emulator.close(),
  };
}
