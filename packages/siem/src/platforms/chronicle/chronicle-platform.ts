// Google Security Operations / Chronicle (siem_e, beta) on the Chronicle API (v1alpha):
// - alerts: POST /v1alpha/{instance}/events:import with {"inlineSource": {"events": [{"udm": ...}]}} (all events of
//   a request valid, or none imported; the answer is empty):
//   https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances.events/import
//   (it replaces the Ingestion API's udmevents:batchCreate: https://cloud.google.com/chronicle/docs/reference/ingestion-methods)
// - enrichment: GET /v1alpha/{instance}:udmSearch?query=...&timeRange.startTime=...&timeRange.endTime=...&limit=...:
//   https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/udmSearch
// - connection check: GET /v1alpha/{instance} (instances.get):
//   https://cloud.google.com/chronicle/docs/reference/rest/v1alpha/projects.locations.instances/get
// - errors: Google's {"error": {"code", "message", "status"}}: https://cloud.google.com/apis/design/errors
// - cases: SecOps cases belong to its SOAR side; this beta connector does not open them.
import {
  type Alert,
  type EnrichedIndicator,
  EnrichedIndicatorSchema,
  type IndicatorRecord,
  parseRecord,
} from '@threatlib/core';
import type { SiemHttpRequest, SiemHttpResponse } from '../../connector/siem-http.js';
import { threatlibIdentity } from '../../formats/product-identity.js';
import type {
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformLimits,
  PlatformSettings,
  SiemPlatform,
} from '../platform.js';
import { ChronicleAuth, type GoogleAuthSdk } from './chronicle-auth.js';
import type { ChronicleCredential } from './chronicle-credentials.js';
import type { ChronicleOptions } from './chronicle-options.js';
import { readGoogleFailure, retryAfterMs, snippet } from './google-answers.js';
import { alertUdmEvent, type UdmProduct } from './udm-events.js';
import { enrichmentQuery, type SearchSummary, summariseSearch } from './udm-search.js';

const DAY = 86_400_000;
/** An event stamped "now" by a clock slightly ahead of the searcher's is still in the window. */
const SEARCH_END_SLACK_MS = 60_000;

/**
 * What one events:import request carries at most: 500 events and about 500 KB of alerts (about 1 MB as UDM), well
 * within what Google's front ends take in one request.
 */
const LIMITS: PlatformLimits = { maxBatchAlerts: 500, maxBatchBytes: 500_000 };

/** Google SecOps as a `SiemPlatform`. */
export class ChroniclePlatform implements SiemPlatform {
  readonly limits = LIMITS;
  readonly #settings: PlatformSettings<ChronicleOptions>;
  readonly #auth: ChronicleAuth;
  readonly #instance: string;
  readonly #product: UdmProduct;

  constructor(
    settings: PlatformSettings<ChronicleOptions>,
    credential: ChronicleCredential,
    google: GoogleAuthSdk | undefined,
  ) {
    this.#settings = settings;
    this.#auth = new ChronicleAuth(credential, settings, google);
    const { project, location, instance, vendorName, productName } = settings.options;
    this.#instance = `projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/instances/${encodeURIComponent(instance)}`;
    this.#product = { vendorName, productName, productVersion: threatlibIdentity().version };
  }

  async sendAlerts(batch: readonly Alert[], call: PlatformCall): Promise<DeliveryReceipt> {
    const body = JSON.stringify({
      inlineSource: { events: batch.map((alert) => alertUdmEvent(alert, this.#product)) },
    });
    const response = await this.#api(call, {
      method: 'POST',
      path: `/v1alpha/${this.#instance}/events:import`,
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (response.statusCode !== 200) throw this.#failure(call, response, 'events:import');
    return { platform: 'siem_e', accepted: batch.length };
  }

  async createCase(_input: unknown, call: PlatformCall): Promise<string> {
    throw call.errors.unsupported(
      'creating cases is not supported by the beta connector for Google SecOps (siem_e): SecOps opens cases from its alerts and detections; send the case as an alert with sendAlert, or use a production platform for cases',
    );
  }

  async enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator> {
    const now = this.#settings.clock.now();
    const params = new URLSearchParams({
      query: enrichmentQuery(indicator),
      'timeRange.startTime': new Date(now - this.#settings.options.searchDays * DAY).toISOString(),
      'timeRange.endTime': new Date(now + SEARCH_END_SLACK_MS).toISOString(),
      limit: String(this.#settings.options.searchLimit),
    });
    const response = await this.#api(call, { method: 'GET', path: `/v1alpha/${this.#instance}:udmSearch?${params}` });
    if (response.statusCode !== 200) throw this.#failure(call, response, 'udmSearch');
    let found: SearchSummary;
    try {
      found = summariseSearch(response.body);
    } catch (error) {
      throw call.errors.request(`udmSearch answered something that is not its JSON: ${snippet(response.body)}`, {
        statusCode: response.statusCode,
        cause: error,
      });
    }
    if (found.truncated) {
      this.#settings.logger.warn(
        { platform: 'siem_e', indicator: indicator.value, counted: found.count },
        'udmSearch found more events than its limit: associatedEvents is a lower bound (raise searchLimit, up to 10000)',
      );
    }
    const at = (ms: number | undefined) => new Date(ms ?? now).toISOString();
    return parseRecord(
      EnrichedIndicatorSchema,
      {
        indicator: indicator.value,
        firstSeen: at(found.first),
        lastSeen: at(found.last),
        associatedEvents: found.count,
        riskScore: found.risk,
      },
      'Google SecOps search result',
    );
  }

  async testConnection(call: PlatformCall): Promise<ConnectionReport> {
    const checks: Record<string, string> = {};
    // 1. The credentials: a service account's token first, so a refused key is told apart from a refused call.
    const auth = await this.#auth.authorization(call);
    checks.credentials = auth.fresh
      ? `token obtained for the ${this.#auth.identity}`
      : `using the ${this.#auth.identity}`;
    // 2. The instance, with the token (instances.get: chronicle.instances.get).
    const response = await this.#api(call, { method: 'GET', path: `/v1alpha/${this.#instance}` });
    if (response.statusCode !== 200) throw this.#failure(call, response, 'instances.get');
    checks.instance = `${this.#settings.options.instance} in ${this.#settings.options.location} answers`;
    return { platform: 'siem_e', checks };
  }

  /**
   * A Chronicle API request with the bearer token. A service account's cached token that the API refuses (401) is
   * dropped and the request made once more with a new one, as Google's own clients do.
   */
  async #api(call: PlatformCall, request: SiemHttpRequest): Promise<SiemHttpResponse> {
    const send = async () => {
      const auth = await this.#auth.authorization(call);
      const response = await this.#settings.http.request(call, {
        ...request,
        headers: { accept: 'application/json', ...request.headers, authorization: auth.header },
      });
      return { response, fresh: auth.fresh };
    };
    const first = await send();
    if (first.response.statusCode !== 401 || first.fresh || !this.#auth.renewable) return first.response;
    this.#auth.invalidate();
    return (await send()).response;
  }

  #failure(call: PlatformCall, response: SiemHttpResponse, method: string) {
    const failure = readGoogleFailure(response.body);
    const status = failure.status ? `${failure.status}: ` : '';
    if (response.statusCode === 401 || response.statusCode === 403) {
      const hint =
        response.statusCode === 401 && !this.#auth.renewable
          ? '; an access token lasts about an hour: give the service account key file’s JSON as the token to have the connector renew it'
          : '';
      return call.errors.fromStatus(
        response.statusCode,
        `${status}${failure.message} (${method}, as the ${this.#auth.identity}${hint})`,
        failure.reason === undefined ? {} : { siemCode: failure.reason },
      );
    }
    const retryAfter = retryAfterMs(response.headers['retry-after'], this.#settings.clock.now());
    return call.errors.fromStatus(response.statusCode, `${method}: ${status}${failure.message}`, {
      ...(failure.status === undefined ? {} : { siemCode: failure.status }),
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    });
  }
}
