// Microsoft Sentinel threat intelligence, as @threatlib/cloud's CloudSiemIntegration reaches it through the Azure
// SDKs: the Entra ID token authority (the one of @threatlib/siem-emulator, shared rather than written twice), the
// STIX objects upload API (sentinel-upload.ts), and through Azure Resource Manager the workspace and the legacy
// indicator API (sentinel-arm.ts). The real services live on three hosts (login.microsoftonline.com,
// api.ti.sentinel.azure.com, management.azure.com); here they share the emulator's one HTTPS origin, told apart by
// path, each client pointed at it with its endpoint option.
import { randomUUID } from 'node:crypto';
import { EntraAuthority } from '@threatlib/siem-emulator';
import { createTestPki, trustInThisProcess } from '@threatlib/test-utils';
import type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';
import { type EmulatorServer, startEmulatorServer } from './emulator-server.js';
import { handleArm, isArm } from './sentinel-arm.js';
import { handleUpload, isUpload } from './sentinel-upload.js';
import {
  asEmulatorRequest,
  type ReceivedUpload,
  SENTINEL_TI_DEFAULTS,
  type SentinelTiConfig,
  type SentinelTiState,
  type StoredLegacyIndicator,
  type StoredStixObject,
} from './sentinel-workspace.js';

/** Options of the Sentinel emulator: any of {@link SENTINEL_TI_DEFAULTS} to change, and a clock. */
export interface SentinelEmulatorOptions extends Partial<SentinelTiConfig> {
  /** Epoch ms now, for token expiry and the per-minute rate (default `Date.now`). */
  now?: () => number;
}

/**
 * The emulated Sentinel workspace's threat intelligence: the STIX objects it holds (`objects`, latest version by id),
 * the upload requests it answered (`uploads`), the indicators the legacy API created (`legacyIndicators`), and
 * `throttleNext` to make the next requests answer 429.
 */
export class SentinelEmulator implements CloudService {
  readonly service = 'sentinel';
  readonly config: SentinelTiConfig;
  readonly authority: EntraAuthority;
  readonly #state: SentinelTiState;

  constructor(options: SentinelEmulatorOptions = {}) {
    const { now = Date.now, ...overrides } = options;
    this.config = { ...SENTINEL_TI_DEFAULTS, ...overrides };
    this.authority = new EntraAuthority(
      this.config.tenantId,
      [{ clientId: this.config.clientId, clientSecret: this.config.clientSecret, objectId: randomUUID() }],
      now,
    );
    this.#state = {
      config: this.config,
      authority: this.authority,
      objects: new Map(),
      uploads: [],
      legacy: new Map(),
      requestTimes: new Map(),
      throttles: [],
      now,
    };
  }

  /** The STIX objects accepted, by id (each its latest version). */
  get objects(): ReadonlyMap<string, StoredStixObject> {
    return this.#state.objects;
  }

  /** Every upload request that reached validation, oldest first, with the records it refused. */
  get uploads(): readonly ReceivedUpload[] {
    return this.#state.uploads;
  }

  /** The indicators the legacy API created, by resource name (lower case). */
  get legacyIndicators(): ReadonlyMap<string, StoredLegacyIndicator> {
    return this.#state.legacy;
  }

  /** Makes the next `count` requests of `api` answer 429 with `Retry-After: retryAfterSeconds`. */
  throttleNext(count: number, retryAfterSeconds = 1, api: 'upload' | 'legacy' = 'upload'): void {
    for (let i = 0; i < count; i++) this.#state.throttles.push({ api, retryAfterSeconds });
  }

  handles(request: CloudRequest): boolean {
    return this.authority.handles(asEmulatorRequest(request, 0)) || isUpload(request) || isArm(request);
  }

  handle(request: CloudRequest): CloudResponse {
    const now = this.#state.now();
    if (this.authority.handles(asEmulatorRequest(request, now))) {
      return this.authority.handle(asEmulatorRequest(request, now));
    }
    if (isUpload(request)) return handleUpload(this.#state, request);
    return handleArm(this.#state, request);
  }

  reset(): void {
    this.#state.objects.clear();
    this.#state.uploads.length = 0;
    this.#state.legacy.clear();
    this.#state.requestTimes.clear();
    this.#state.throttles.length = 0;
    this.authority.issued.length = 0;
  }
}

/** A running {@link SentinelEmulator}: the HTTPS server, the emulator, and the CA that signed its certificate. */
export interface RunningSentinelEmulator extends EmulatorServer {
  readonly sentinel: SentinelEmulator;
  /** The test authority's certificate (PEM); this process already trusts it. */
  readonly ca: string;
}

/**
 * Starts {@link SentinelEmulator} on 127.0.0.1 over HTTPS, with a certificate authority made now that this process
 * is made to trust ({@link trustInThisProcess}): the real `ClientSecretCredential` (`authorityHost: url`,
 * `disableInstanceDiscovery: true`) and the SDK clients (their endpoint: `url`) talk to it with their own agents.
 *
 * @example
 * ```ts
 * const emulator = await startSentinelEmulator();
 * const { tenantId, clientId, clientSecret } = emulator.sentinel.config;
 * const credential = new ClientSecretCredential(tenantId, clientId, clientSecret, {
 *   authorityHost: emulator.url,
 *   disableInstanceDiscovery: true,
 * });
 * ```
 */
export async function startSentinelEmulator(
  options: SentinelEmulatorOptions & { port?: number } = {},
): Promise<RunningSentinelEmulator> {
  const sentinel = new SentinelEmulator(options);
  const tls = await createTestPki('threatlib Sentinel emulator test authority');
  trustInThisProcess(tls.ca);
  const server = await startEmulatorServer([sentinel], {
    tls: { key: tls.key, cert: tls.cert },
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  return Object.assign(server, { sentinel, ca: tls.ca });
}
