// Splunk (siem_a): alerts and cases through the HTTP Event Collector, enrichment through the search REST API.
// - HEC event endpoint, token header `Authorization: Splunk <token>`, events concatenated in one body:
//   https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/format-events-for-http-event-collector
// - HEC endpoints (event, ack, health):
//   https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/http-event-collector-rest-api-endpoints
// - Indexer acknowledgement (channel header, POST /services/collector/ack {"acks": [...]} → {"acks": {"0": true}}):
//   https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/about-http-event-collector-indexer-acknowledgment
// - Error codes: https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/troubleshoot-http-event-collector
// - Management port authentication: basic (user:password) or an authentication token as `Authorization: Bearer`;
//   GET /services/server/info answers the version; GET /services/data/inputs/http lists the HEC inputs with their
//   tokens (https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/use-curl-to-manage-http-event-collector-tokens-events-and-services).
import { randomUUID } from 'node:crypto';
import {
  type Alert,
  type Case,
  type EnrichedIndicator,
  EnrichedIndicatorSchema,
  type IndicatorRecord,
  parseRecord,
} from '@threatlib/core';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';
import type { SiemHttpRequest, SiemHttpResponse } from '../../connector/siem-http.js';
import type {
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformLimits,
  PlatformSettings,
  SiemPlatform,
} from '../platform.js';
import { HEC, type HecAnswer, hecFailure, readHecAnswer, snippet } from './hec-answers.js';
import { alertEvent, caseEvent, hecBody } from './hec-events.js';
import { hecToken, type SplunkOptions } from './splunk-options.js';
import {
  enrichmentSearch,
  isoFromEpoch,
  managementReason,
  readExport,
  readOneshot,
  type SearchAnswer,
} from './splunk-search.js';

type Options = ResolvedCommonOptions & SplunkOptions;

/**
 * What one HEC request carries at most: 500 events and 800 KB, under the 1 MB Splunk Cloud accepts per request and
 * the `max_content_length` of a default Splunk Enterprise. HEC takes concurrent requests (Splunk's own forwarders
 * keep several open): four batches in flight.
 */
const LIMITS: PlatformLimits = { maxBatchAlerts: 500, maxBatchBytes: 800_000, concurrentBatches: 4 };

/** Splunk as a `SiemPlatform`. */
export class SplunkPlatform implements SiemPlatform {
  readonly limits = LIMITS;
  readonly #options: Options;
  readonly #settings: PlatformSettings<SplunkOptions>;
  /** The HEC token: from the options, or looked up by input name on first use. */
  #token: string | undefined;
  readonly #channel: string;
  /** Whether HEC wants a channel and acknowledgements: from `hec.ack`, or learnt from its answer. */
  #ack: boolean;
  /** The id of each case, kept across the attempts of one `createCase` so a retry does not make a second one. */
  readonly #caseIds = new WeakMap<Case, string>();

  constructor(settings: PlatformSettings<SplunkOptions>) {
    this.#settings = settings;
    this.#options = settings.options;
    this.#token = hecToken(this.#options);
    this.#channel = this.#options.hec.channel ?? randomUUID();
    this.#ack = this.#options.hec.ack ?? false;
  }

  /** Each alert's HEC event as JSON: a request's body is the batch's, one after the other. */
  encodeAlerts(alerts: readonly Alert[]): string[] {
    return alerts.map((alert) => JSON.stringify(alertEvent(alert, this.#options)));
  }

  async sendAlerts(batch: readonly Alert[], call: PlatformCall, encoded?: readonly string[]): Promise<DeliveryReceipt> {
    const body = (encoded ?? this.encodeAlerts(batch)).join('');
    const answer = await this.#sendEvents(body, call, {
      index: this.#options.index,
      what: batch.map((alert) => `alert ${alert.id}`),
    });
    return {
      platform: 'siem_a',
      accepted: batch.length,
      ...(answer.ackId === undefined ? {} : { ackId: answer.ackId, indexed: true }),
    };
  }

  async createCase(input: Case, call: PlatformCall): Promise<string> {
    let id = this.#caseIds.get(input);
    if (id === undefined) {
      id = randomUUID();
      this.#caseIds.set(input, id);
    }
    const event = caseEvent(input, id, this.#settings.clock.now(), this.#options);
    await this.#sendEvents(hecBody([event]), call, { index: this.#options.caseIndex, what: [`case ${id}`] });
    return id;
  }

  async enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator> {
    const indexes = this.#options.searchIndexes ?? [this.#options.index ?? 'main'];
    const form = new URLSearchParams({
      search: enrichmentSearch(indicator, indexes),
      output_mode: 'json',
      earliest_time: this.#options.earliest,
      latest_time: 'now',
    });
    const oneshot = this.#options.searchMode === 'oneshot';
    if (oneshot) form.set('exec_mode', 'oneshot');
    const response = await this.#management(call, {
      method: 'POST',
      path: oneshot ? '/services/search/jobs' : '/services/search/v2/jobs/export',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    if (response.statusCode !== 200) throw this.#managementFailure(call, response, 'search');
    let answer: SearchAnswer;
    try {
      answer = oneshot ? readOneshot(response.body) : readExport(response.body);
    } catch (error) {
      throw call.errors.request(`search answered something that is not Splunk's JSON: ${snippet(response.body)}`, {
        statusCode: response.statusCode,
        cause: error,
      });
    }
    if (answer.errors.length > 0) {
      throw call.errors.request(`search failed: ${answer.errors.join('; ')}`, { statusCode: response.statusCode });
    }
    const row = answer.rows.at(-1) ?? {};
    const now = new Date(this.#settings.clock.now()).toISOString();
    const count = Number(row.associatedEvents ?? 0);
    const risk = Number(row.riskScore);
    return parseRecord(
      EnrichedIndicatorSchema,
      {
        indicator: indicator.value,
        firstSeen: isoFromEpoch(row.firstSeen) ?? now,
        lastSeen: isoFromEpoch(row.lastSeen) ?? now,
        associatedEvents: Number.isInteger(count) && count >= 0 ? count : 0,
        riskScore: Number.isFinite(risk) && risk >= 0 ? risk : 0,
      },
      'Splunk search result',
    );
  }

  async testConnection(call: PlatformCall): Promise<ConnectionReport> {
    const checks: Record<string, string> = {};
    // 1. HEC answers at all (no credentials needed): an unreachable collector is told apart from a refused token.
    const health = await this.#hec(call, { method: 'GET', path: '/services/collector/health' });
    const healthAnswer = readHecAnswer(health);
    if (health.statusCode !== 200) throw hecFailure(call, health, healthAnswer);
    checks.collector = healthAnswer.text ?? 'HEC is healthy';
    // 2. The HEC token (looked up first when only a user and password were given): an empty request is refused with
    //    "No data" (or "Data channel is missing") only once the token was accepted, and indexes nothing.
    const lookedUp = this.#token === undefined;
    await this.#hecToken(call);
    const probe = await this.#hec(call, {
      method: 'POST',
      path: '/services/collector/event',
      headers: this.#hecHeaders(),
      body: '',
    });
    const probeAnswer = readHecAnswer(probe);
    if (probe.statusCode === 401 || probe.statusCode === 403) throw hecFailure(call, probe, probeAnswer);
    if (probeAnswer.code === HEC.channelMissing) this.#ack = true;
    if (probeAnswer.code !== HEC.noData && probeAnswer.code !== HEC.channelMissing && probe.statusCode !== 200) {
      throw hecFailure(call, probe, probeAnswer);
    }
    checks.token = `${lookedUp ? `of HEC input ${this.#options.hec.tokenName}, ` : ''}accepted${this.#ack ? ' (indexer acknowledgement on)' : ''}`;
    // 3. The management port and its credentials.
    const info = await this.#management(call, { method: 'GET', path: '/services/server/info?output_mode=json' });
    if (info.statusCode !== 200) throw this.#managementFailure(call, info, 'server info');
    const version = serverVersion(info.body);
    checks.management = version ? `Splunk ${version}` : 'authenticated';
    return { platform: 'siem_a', ...(version ? { version } : {}), checks };
  }

  /** Posts events to HEC, switching to acknowledgements when HEC asks for a channel, and waits for them. */
  /** Posts `body` (events' JSON, one after the other) to HEC, on the ack channel when the token uses it. */
  async #sendEvents(
    body: string,
    call: PlatformCall,
    context: { index?: string | undefined; what: readonly string[] },
  ): Promise<HecAnswer> {
    await this.#hecToken(call);
    // Whether this request goes on the channel: batches in flight together may all have gone without one.
    const onChannel = this.#ack;
    let response = await this.#postEvents(body, call);
    let answer = readHecAnswer(response);
    if (response.statusCode === 400 && answer.code === HEC.channelMissing && !onChannel) {
      // The token has indexer acknowledgement on: nothing was indexed, so send again on a channel.
      if (!this.#ack) {
        this.#ack = true;
        this.#settings.logger.info(
          { platform: 'siem_a' },
          'the HEC token uses indexer acknowledgement: using a channel',
        );
      }
      response = await this.#postEvents(body, call);
      answer = readHecAnswer(response);
    }
    if (response.statusCode !== 200 || (answer.code !== undefined && answer.code !== HEC.success)) {
      throw hecFailure(call, response, answer, {
        ...(context.index === undefined ? {} : { index: context.index }),
        what: context.what,
      });
    }
    if (this.#ack) {
      if (typeof answer.ackId !== 'number') {
        throw call.errors.request(
          `HEC answered without an ackId on channel ${this.#channel}: ${snippet(response.body)}`,
          {
            statusCode: response.statusCode,
          },
        );
      }
      await this.#awaitAck(answer.ackId, call);
    }
    return answer;
  }

  #postEvents(body: string, call: PlatformCall): Promise<SiemHttpResponse> {
    return this.#hec(call, {
      method: 'POST',
      path: '/services/collector/event',
      headers: { ...this.#hecHeaders(), 'content-type': 'application/json' },
      body,
    });
  }

  /** Polls `/services/collector/ack` until HEC says the request was indexed (within the attempt's timeout). */
  async #awaitAck(ackId: number, call: PlatformCall): Promise<void> {
    for (;;) {
      const response = await this.#hec(call, {
        method: 'POST',
        path: `/services/collector/ack?channel=${encodeURIComponent(this.#channel)}`,
        headers: { ...this.#hecHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ acks: [ackId] }),
      });
      const answer = readHecAnswer(response) as HecAnswer & { acks?: Record<string, unknown> };
      if (response.statusCode !== 200) throw hecFailure(call, response, answer);
      if (answer.acks?.[String(ackId)] === true) return;
      await sleep(this.#settings.clock, this.#options.hec.ackInterval, call.signal);
    }
  }

  /**
   * The HEC token, looked up on the management port the first time when the options give none: the input named
   * `hec.tokenName`, which also says whether it uses indexer acknowledgement.
   */
  async #hecToken(call: PlatformCall): Promise<string> {
    if (this.#token !== undefined) return this.#token;
    const response = await this.#management(call, {
      method: 'GET',
      path: '/services/data/inputs/http?output_mode=json&count=0',
    });
    if (response.statusCode !== 200) throw this.#managementFailure(call, response, 'HEC inputs');
    const name = this.#options.hec.tokenName;
    let entries: { name?: unknown; content?: { token?: unknown; disabled?: unknown; useACK?: unknown } }[] = [];
    try {
      const parsed = JSON.parse(response.body) as { entry?: unknown };
      if (Array.isArray(parsed.entry)) entries = parsed.entry;
    } catch {
      throw call.errors.request(`HEC inputs: an answer that is not Splunk's JSON: ${snippet(response.body)}`, {
        statusCode: response.statusCode,
      });
    }
    const input = entries.find((entry) => entry.name === `http://${name}` || entry.name === name);
    const token = input?.content?.token;
    if (typeof token !== 'string' || !token) {
      throw call.errors.request(
        `no HEC token: set hec.token, or create an HTTP Event Collector input named "${name}" (hec.tokenName) that these credentials may read`,
        { statusCode: response.statusCode },
      );
    }
    if (input?.content?.disabled === true || input?.content?.disabled === '1') {
      throw call.errors.authentication(`the HEC input "${name}" is disabled`);
    }
    this.#settings.secrets.add(token);
    if (this.#options.hec.ack === undefined && (input?.content?.useACK === true || input?.content?.useACK === '1')) {
      this.#ack = true;
    }
    this.#token = token;
    return token;
  }

  #hecHeaders(): Record<string, string> {
    return {
      authorization: `Splunk ${this.#token ?? ''}`,
      ...(this.#ack ? { 'x-splunk-request-channel': this.#channel } : {}),
    };
  }

  #hec(call: PlatformCall, request: SiemHttpRequest): Promise<SiemHttpResponse> {
    const { host, port } = this.#options.hec;
    return this.#settings.http.request(call, { ...request, ...(host ? { host } : {}), port });
  }

  #management(call: PlatformCall, request: SiemHttpRequest): Promise<SiemHttpResponse> {
    const credentials = this.#options.credentials;
    const authorization =
      'token' in credentials
        ? `Bearer ${credentials.token}`
        : `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    return this.#settings.http.request(call, {
      ...request,
      headers: { ...request.headers, authorization },
    });
  }

  #managementFailure(call: PlatformCall, response: SiemHttpResponse, what: string) {
    const reason = managementReason(response.body) ?? snippet(response.body);
    if (response.statusCode === 401 || response.statusCode === 403) {
      return call.errors.fromStatus(response.statusCode, `${reason} (management port, ${what})`);
    }
    return call.errors.fromStatus(response.statusCode, `${what}: ${reason}`);
  }
}

function serverVersion(body: string): string | undefined {
  try {
    const object = JSON.parse(body) as { entry?: { content?: { version?: unknown } }[] };
    const version = object.entry?.[0]?.content?.version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

function sleep(clock: PlatformSettings<unknown>['clock'], ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
