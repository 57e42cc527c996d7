import { generateKeyPairSync } from 'node:crypto';
import {
  CHRONICLE_DEFAULTS,
  type RunningSiemEmulator,
  type ServiceAccountKeyFile,
  startSiemEmulator,
  TEST_CA,
} from '@threatlib/siem-emulator';
import type { SiemHarness } from '../compliance/siem-compliance.test-suite.js';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { closedPort } from './closed-port.js';

type Noun = {
  ip?: string[];
  hostname?: string;
  url?: string;
  file?: Record<string, string>;
  user?: { emailAddresses?: string[] };
};

/** The indicator a UDM noun names, as the connector writes it. */
function nounValue(noun: Noun): string | undefined {
  return (
    noun.ip?.[0] ?? noun.hostname ?? noun.url ?? Object.values(noun.file ?? {})[0] ?? noun.user?.emailAddresses?.[0]
  );
}

/**
 * The Chronicle emulator as a compliance harness (a service account key whose token_uri is the emulator's token
 * endpoint), with the emulator and the key for Chronicle's own tests.
 */
export async function chronicleHarness(
  emulatorOptions: Parameters<typeof startSiemEmulator>[0] = {},
): Promise<SiemHarness & { emulator: RunningSiemEmulator; key: ServiceAccountKeyFile }> {
  const emulator = await startSiemEmulator(emulatorOptions);
  const down = await closedPort();
  const key = emulator.chronicle.serviceAccountKey(emulator.url);
  // The same account and key id, signed with a key Google never issued: its token endpoint refuses the signature.
  const forged = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  const options: SiemConnectorOptions = {
    platform: 'siem_e',
    host: emulator.host,
    port: emulator.port,
    credentials: { token: JSON.stringify(key) },
    project: CHRONICLE_DEFAULTS.project,
    location: CHRONICLE_DEFAULTS.location,
    instance: CHRONICLE_DEFAULTS.instance,
    tls: { ca: TEST_CA },
  };
  return {
    emulator,
    key,
    options,
    get secrets() {
      return [key.private_key, forged, JSON.stringify(key), ...emulator.chronicle.oauth.issued];
    },
    badCredentials: { credentials: { token: JSON.stringify({ ...key, private_key: forged }) } },
    down: {
      port: down,
      credentials: { token: JSON.stringify({ ...key, token_uri: `https://127.0.0.1:${down}/oauth2/v4/token` }) },
    },
    async alerts() {
      return emulator.chronicle.events
        .filter((e) => e.udm.metadata.productEventType === 'threatlib:alert')
        .map((e) => {
          const udm = e.udm as unknown as {
            target?: Noun;
            about?: Noun[];
            securityResult: { summary: string; severity: string }[];
          };
          const result = udm.securityResult[0] as { summary: string; severity: string };
          const nouns = [...(udm.target ? [udm.target] : []), ...(udm.about ?? [])];
          return {
            title: result.summary,
            severity: result.severity.toLowerCase(),
            indicators: nouns.map(nounValue).filter((v): v is string => v !== undefined),
          };
        });
    },
    async caseById() {
      return undefined;
    },
    failNext(count, fault) {
      emulator.failNext(count, fault, 'chronicle');
    },
    hung: () => emulator.hung(),
    close: () => emulator.close(),
  };
}
