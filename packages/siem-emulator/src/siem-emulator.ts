import { type SiemEmulator, type SiemEmulatorOptions, startEmulatorServer } from './emulator.js';
import type { VendorEmulator } from './vendor.js';
import { type ChronicleEmulator, type ChronicleEmulatorOptions, createChronicleEmulator } from './vendors/chronicle.js';
import { createKibanaEmulator, type KibanaEmulator, type KibanaEmulatorOptions } from './vendors/kibana.js';
import { createQradarEmulator, type QradarEmulator, type QradarEmulatorOptions } from './vendors/qradar.js';
import { createSentinelEmulator, type SentinelEmulator, type SentinelEmulatorOptions } from './vendors/sentinel.js';
import { createSplunkEmulator, type SplunkEmulator, type SplunkEmulatorOptions } from './vendors/splunk.js';

/**
 * The emulated vendors, by name, each with what it received and its scripted state. Every vendor file adds its
 * entry here and in {@link startSiemEmulator}.
 */
export interface EmulatedVendors {
  splunk: SplunkEmulator;
  /** Also listens for syslog (TCP on `syslogPort`, TLS on `syslogTlsPort`), closed with the emulator. */
  qradar: QradarEmulator;
  chronicle: ChronicleEmulator;
  /** Entra ID token authority, Logs Ingestion, Log Analytics query and Sentinel incidents (ARM), told apart by path. */
  sentinel: SentinelEmulator;
  /** Kibana's Cases and status APIs (Elastic's cases; Elasticsearch itself is the real one from e2e/services). */
  kibana: KibanaEmulator;
}

/** Options of {@link startSiemEmulator}: the server's, and each vendor's. */
export interface StartSiemEmulatorOptions extends SiemEmulatorOptions {
  splunk?: SplunkEmulatorOptions;
  qradar?: QradarEmulatorOptions;
  chronicle?: ChronicleEmulatorOptions;
  sentinel?: SentinelEmulatorOptions;
  kibana?: KibanaEmulatorOptions;
}

/** A running emulator with every vendor on it. */
export type RunningSiemEmulator = SiemEmulator & EmulatedVendors;

/**
 * Starts one HTTPS server (the bundled test certificate; trust `TEST_CA`) on 127.0.0.1 with every emulated vendor,
 * each reached by its API's own paths.
 *
 * @example
 * ```ts
 * const emulator = await startSiemEmulator();
 * // new SIEMConnector({ platform: 'siem_a', host: emulator.host, port: emulator.port, tls: { ca: TEST_CA }, ... })
 * await emulator.close();
 * ```
 */
export async function startSiemEmulator(options: StartSiemEmulatorOptions = {}): Promise<RunningSiemEmulator> {
  const vendors: EmulatedVendors = {
    splunk: createSplunkEmulator(options.splunk),
    qradar: createQradarEmulator(options.qradar),
    chronicle: createChronicleEmulator(options.chronicle),
    sentinel: createSentinelEmulator(options.sentinel),
    kibana: createKibanaEmulator(options.kibana),
  };
  await vendors.qradar.listen();
  const server = await startEmulatorServer(Object.values(vendors) as VendorEmulator[], options).catch(
    async (error: unknown) => {
      await vendors.qradar.closeListeners();
      throw error;
    },
  );
  const closeServer = server.close;
  return Object.assign(server, vendors, {
    async close() {
      await closeServer();
      await vendors.qradar.closeListeners();
    },
  });
}
