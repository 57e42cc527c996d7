// IBM QRadar as @threatlib/siem talks to it: the REST API (system/about, reference sets, Ariel searches, offense
// notes) and the TCP and TLS syslog listeners whose LEEF events Ariel then searches. Strict the way QRadar is:
// authentication first (SEC token or basic), then the Version and Accept headers, then the parameters and body,
// each failure answered with QRadar's error envelope {http_response: {code, message}, code, description, details,
// message}, its documented HTTP status and unique code. The emulated release is QRadar 7.5.0 Update Package 8:
// API 22.0 (20.0 and 21.0 supported, 19.x deprecated and answered with a Deprecated header, older ones refused).
// - Versions, authentication, Version header, deprecation (410 for removed endpoints, 422 for removed versions):
//   https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_getting_started.html
// - Error envelope and HTTP messages: https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_errors.html
// - Filter syntax: https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_filtering.html
// - Endpoints (API 20.0, unchanged to 26.0): https://ibmsecuritydocs.github.io/qradar_api_20.0/
//   20.0--reference_data-sets-POST.html, 20.0--reference_data-sets-name-GET.html, 20.0--reference_data-sets-name-POST.html,
//   20.0--reference_data-sets-bulk_load-namespace-name-domain_id-POST.html, 20.0--ariel-searches-POST.html,
//   20.0--ariel-searches-search_id-GET.html, 20.0--ariel-searches-search_id-results-GET.html,
//   20.0--siem-offenses-offense_id-GET.html, 20.0--siem-offenses-offense_id-notes-POST.html, 20.0--system-about-GET.html
// - The 401 and 403 bodies (codes 18 and 26) as QRadar sends them, e.g. IBM's countMVS tests and public mocks.
// The wording of a refused token or password is the emulator's: IBM documents the envelope, not that sentence.
// This file holds the options, the emulator's state and its routing; the envelope and request checks are in
// qradar-api.ts, the endpoints in qradar-reference-sets.ts, qradar-ariel.ts and qradar-offenses.ts, the syslog
// intake in qradar-events.ts (over the listeners of qradar-syslog.ts and the AQL of qradar-aql.ts).
import { readFileSync } from 'node:fs';
import type { EmulatorRequest, EmulatorResponse, VendorEmulator } from '../vendor.js';
import { authenticate, checkAccept, checkVersion, notFound, qradarError } from './qradar-api.js';
import { handleAriel } from './qradar-ariel.js';
import { type LeefReader, type QradarEvent, toQradarEvent } from './qradar-events.js';
import { handleOffenses } from './qradar-offenses.js';
import { handleReferenceSets } from './qradar-reference-sets.js';
import type { ArielSearch, OffenseNote, QradarState, ReferenceSet } from './qradar-state.js';
import { type SyslogListener, type SyslogMessage, startSyslogListener } from './qradar-syslog.js';

/** Options of the QRadar emulator. */
export interface QradarEmulatorOptions {
  /** Authorized service tokens accepted in `SEC` (default: {@link QRADAR_DEFAULTS}.token). */
  tokens?: readonly string[];
  /** Users for basic authentication, name to password (default: {@link QRADAR_DEFAULTS}.username / password). */
  users?: Record<string, string>;
  /** Reads the LEEF of each syslog message; without it, messages are kept as unparsed payloads. */
  parseLeef?: LeefReader;
  /** Custom event properties AQL may name besides the LEEF keys received (default `['riskScore']`). */
  customProperties?: readonly string[];
  /** Longest syslog message kept, in bytes (QRadar's default "Max TCP Syslog Payload Length": 4096). */
  maxPayloadBytes?: number;
  /** Offenses that exist, by id. */
  offenses?: readonly number[];
  /** Domains that exist besides the shared one (default `[0]`, the Default Domain). */
  domains?: readonly number[];
  /** Status polls of an Ariel search that answer before it is COMPLETED (default 1). */
  arielPolls?: number;
  /**
   * Whether a status poll with `Prefer: wait=N` waits for the search (default true: it completes at once); false
   * answers it like a poll without the header (a server or proxy that drops `Prefer`).
   */
  honourPreferWait?: boolean;
}

/** The credentials a default emulator accepts. */
export const QRADAR_DEFAULTS = {
  token: '4c1f9e2a-7b3d-4e8f-a6c5-2d9b0e1f3a7c',
  username: 'admin',
  password: 'qradar-emulator-password-5e2b',
} as const;

/** The QRadar emulator: what it received, and its scripted state. */
export interface QradarEmulator extends VendorEmulator {
  /** Every syslog message received, as an Ariel event, oldest first. */
  readonly events: readonly QradarEvent[];
  readonly referenceSets: ReadonlyMap<string, ReferenceSet>;
  /** Every Ariel search created. */
  readonly searches: readonly { search_id: string; query_expression: string }[];
  /** Offenses by id, with their notes. */
  readonly offenses: ReadonlyMap<number, { id: number; notes: OffenseNote[] }>;
  /** Port of the plain TCP syslog listener (0 until `listen`). */
  readonly syslogPort: number;
  /** Port of the TLS syslog listener (0 until `listen`). */
  readonly syslogTlsPort: number;
  /** Status polls of an Ariel search that answer before it is COMPLETED. */
  arielPolls: number;
  addOffense(id: number): void;
  /** Starts the syslog listeners, TLS with `tls` or the bundled test certificate (trust `TEST_CA`). */
  listen(tls?: { key: string; cert: string }): Promise<void>;
  /** Stops the syslog listeners. */
  closeListeners(): Promise<void>;
}

/** Creates a QRadar emulator (serve it with `startSiemEmulator`, which also starts its syslog listeners). */
export function createQradarEmulator(options: QradarEmulatorOptions = {}): QradarEmulator {
  const tokens = new Set(options.tokens ?? [QRADAR_DEFAULTS.token]);
  const users = options.users ?? { [QRADAR_DEFAULTS.username]: QRADAR_DEFAULTS.password };
  const customProperties = new Set(options.customProperties ?? ['riskScore']);
  const maxPayloadBytes = options.maxPayloadBytes ?? 4096;
  const domains = new Set(options.domains ?? [0]);
  const events: QradarEvent[] = [];
  const sets = new Map<string, ReferenceSet>();
  const searches: ArielSearch[] = [];
  const offenses = new Map<number, { id: number; notes: OffenseNote[] }>();
  const listeners: SyslogListener[] = [];
  let nextId = 1;

  const addOffense = (id: number) => {
    if (!offenses.has(id)) offenses.set(id, { id, notes: [] });
  };
  for (const id of options.offenses ?? []) addOffense(id);

  const receive = (message: SyslogMessage) => {
    events.push(toQradarEvent(message, options.parseLeef));
  };

  const state: QradarState = {
    events,
    sets,
    searches,
    offenses,
    domains,
    customProperties,
    honourPreferWait: options.honourPreferWait !== false,
    arielPolls: () => emulator.arielPolls,
    nextId: () => nextId++,
  };

  const emulator: QradarEmulator = {
    vendor: 'qradar',
    arielPolls: options.arielPolls ?? 1,
    get events() {
      return events;
    },
    get referenceSets() {
      return sets;
    },
    get searches() {
      return searches;
    },
    get offenses() {
      return offenses;
    },
    get syslogPort() {
      return listeners[0]?.port ?? 0;
    },
    get syslogTlsPort() {
      return listeners[1]?.port ?? 0;
    },
    addOffense,
    handles: (request) => /^\/api\/(reference_data|ariel|siem|system|help)(\/|$)/.test(request.path),
    handle(request) {
      const refused = authenticate(request, tokens, users);
      if (refused) return refused;
      const version = checkVersion(request);
      if ('status' in version) return version;
      const accept = checkAccept(request);
      if (accept) return accept;
      const response = route(request);
      return { ...response, headers: { ...version.headers, ...response.headers } };
    },
    busy: () => qradarError(503, 1010, 'The server is temporarily unavailable. Please try again later.'),
    reset() {
      events.length = 0;
      sets.clear();
      searches.length = 0;
      for (const offense of offenses.values()) offense.notes.length = 0;
      emulator.arielPolls = options.arielPolls ?? 1;
    },
    async listen(tls) {
      if (listeners.length > 0) return;
      listeners.push(await startSyslogListener({ maxPayloadBytes, onMessage: receive }));
      listeners.push(
        await startSyslogListener({
          maxPayloadBytes,
          onMessage: receive,
          tls: tls ?? {
            key: readFileSync(new URL('../../certs/server-key.pem', import.meta.url), 'utf8'),
            cert: readFileSync(new URL('../../certs/server.pem', import.meta.url), 'utf8'),
          },
        }),
      );
    },
    async closeListeners() {
      await Promise.all(listeners.splice(0).map((listener) => listener.close()));
    },
  };

  const route = (request: EmulatorRequest): EmulatorResponse => {
    const segments = request.path.split('/').slice(2).map(decodeURIComponent);
    const [area, ...rest] = segments;
    if (area === 'system' && rest.length === 1 && rest[0] === 'about') {
      if (request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
      return {
        status: 200,
        body: {
          release_name: '7.5.0',
          build_version: '2022.2.0.20230719120000',
          external_version: '7.5.0 UpdatePackage 8',
          fips_enabled: false,
        },
      };
    }
    if (area === 'reference_data' && rest[0] === 'sets') return handleReferenceSets(state, request, rest.slice(1));
    if (area === 'ariel' && rest[0] === 'searches') return handleAriel(state, request, rest.slice(1));
    if (area === 'siem') return handleOffenses(state, request, rest);
    return notFound();
  };

  return emulator;
}
