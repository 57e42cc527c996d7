// Elastic Security (siem_c): alerts and enrichment on Elasticsearch through the official client, cases on Kibana.
// - Bulk API (`create` actions: the `_id` is the alert id, a data stream takes them too; per-item errors):
//   https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk
// - Index templates: https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-indices-put-index-template
// - Authenticate API (who the credentials are): https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-security-authenticate
// - Has privileges API: https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-security-has-privileges
// - Kibana status API: https://www.elastic.co/docs/api/doc/kibana/operation/operation-get-status
// - The JavaScript client 8.x (`client.bulk`, `signal` and `maxRetries` per request):
//   https://www.elastic.co/docs/reference/elasticsearch/clients/javascript/api-reference
//
// Why `client.bulk` and not `client.helpers.bulk`: the connector already batches (one `sendAlerts` call is one
// batch), times each attempt out and retries it; the helper would batch, retry 429s and wait on its own, inside one
// attempt and without our errors. One `_bulk` request per attempt is what the helper sends per flush, so the cost per
// alert is the same.
import type { Client } from '@elastic/elasticsearch';
import type { Alert, Case, EnrichedIndicator, IndicatorRecord } from '@threatlib/core';
import { retryAfter } from '@threatlib/core/integration';
import type { SiemHttpResponse } from '../../connector/siem-http.js';
import { SiemUnreachableError } from '../../connector/siem-unreachable-error.js';
import type {
  ConnectionReport,
  DeliveryReceipt,
  PlatformCall,
  PlatformLimits,
  PlatformSettings,
  SiemPlatform,
} from '../platform.js';
import { alertIndexTemplate } from './alert-index-template.js';
import { type BulkItem, readBulkItems } from './bulk-answer.js';
import { ecsAlertDocument } from './ecs-alert.js';
import type { ElasticOptions, KibanaOptions, ResolvedElasticOptions } from './elastic-options.js';
import { elasticsearchFailure, elasticsearchReason } from './elasticsearch-failure.js';
import type { ElasticsearchSdk } from './elasticsearch-sdk.js';
import { enrichmentSearch, readEnrichment } from './enrichment-search.js';
import { kibanaCaseBody, kibanaReason } from './kibana-case.js';

/** Most failed items an error lists by name. */
const LISTED_FAILURES = 5;

/** The Kibana API version header every public Kibana API takes (required on Serverless). */
const KIBANA_API_VERSION = '2023-10-31';

/** `siem_c`: see the README's Elastic section. */
export class ElasticPlatform implements SiemPlatform {
  /**
   * 5 MB per request, as the client's bulk helper flushes (`flushBytes`), and 5,000 alerts: far below
   * `http.max_content_length` (100 MB), in the 5–15 MB Elastic's tuning guide suggests. Four requests in flight (the
   * helper keeps five), so that Elasticsearch indexes one batch while the next is sent; the index set-up a first
   * batch may do is safe to race (an index or template another request made meanwhile is taken as it is).
   */
  readonly limits: PlatformLimits = { maxBatchAlerts: 5_000, maxBatchBytes: 5 * 1024 * 1024, concurrentBatches: 4 };
  readonly #settings: PlatformSettings<ElasticOptions>;
  readonly #options: ResolvedElasticOptions;
  readonly #client: Client;
  #indexReady = false;

  constructor(settings: PlatformSettings<ElasticOptions>, elasticsearch: ElasticsearchSdk) {
    this.#settings = settings;
    this.#options = settings.options;
    const { credentials, tls, timeout, tokenScheme } = this.#options;
    const ca = tls.ca === undefined ? undefined : (Array.isArray(tls.ca) ? tls.ca : [tls.ca]).map(pemText);
    this.#client = new elasticsearch.Client({
      node: settings.http.origin(),
      auth:
        'password' in credentials
          ? { username: credentials.username, password: credentials.password }
          : tokenScheme === 'Bearer'
            ? { bearer: credentials.token }
            : { apiKey: credentials.token },
      tls: {
        rejectUnauthorized: tls.rejectUnauthorized,
        ...(ca === undefined ? {} : { ca }),
        ...(tls.servername === undefined ? {} : { servername: tls.servername }),
      },
      // The connector retries and times out each attempt (through the signal); the client's own timeout is only a
      // backstop a little later, so that the connector's timeout error is the one reported.
      maxRetries: 0,
      requestTimeout: timeout + 1_000,
      compression: false,
      name: 'threatlib',
    });
  }

  /**
   * Each alert as its two `_bulk` lines, the `create` action and the ECS document (`event.created` is now: when its
   * batch was made, the same for every attempt), joined by a newline; the client ends each with another.
   */
  encodeAlerts(alerts: readonly Alert[]): string[] {
    const { index } = this.#options;
    const sentAt = new Date(this.#settings.clock.now());
    return alerts.map(
      (alert) =>
        `${JSON.stringify({ create: { _index: index, _id: alert.id } })}\n${JSON.stringify(ecsAlertDocument(alert, sentAt))}`,
    );
  }

  async sendAlerts(batch: readonly Alert[], call: PlatformCall, encoded?: readonly string[]): Promise<DeliveryReceipt> {
    const { index, refresh } = this.#options;
    await this.#ensureIndex(call);
    // The client writes a string in `operations` as it is, followed by a newline (its `ndserialize`).
    const operations = [...(encoded ?? this.encodeAlerts(batch))];
    const what = `bulk request to ${index}`;
    let items: Record<string, BulkItem | undefined>[];
    try {
      const answer = await this.#client.bulk({ operations, refresh }, { signal: call.signal });
      items = answer.items as unknown as Record<string, BulkItem | undefined>[];
    } catch (error) {
      throw elasticsearchFailure(call, error, what);
    }
    let outcome: ReturnType<typeof readBulkItems>;
    try {
      outcome = readBulkItems(items ?? [], batch.length);
    } catch (error) {
      throw call.errors.request(`${what}: ${(error as Error).message}`, { isRetryable: false });
    }
    if (outcome.failures.length > 0) {
      const { failures } = outcome;
      const listed = failures.slice(0, LISTED_FAILURES).map((failure) => {
        const alert = batch[failure.position];
        return `alert ${failure.position + 1} (id ${alert?.id}, "${alert?.title}"): HTTP ${failure.status} ${failure.reason}`;
      });
      const more = failures.length > LISTED_FAILURES ? `; and ${failures.length - LISTED_FAILURES} more` : '';
      const retryable = failures.some((failure) => failure.retryable);
      const written = outcome.created + outcome.duplicates;
      throw call.errors.request(
        `${what}: ${failures.length} of ${batch.length} alerts refused (${written} written): ${listed.join('; ')}${more}`,
        { statusCode: 200, siemCode: failures[0]?.status ?? 0, isRetryable: retryable },
      );
    }
    return {
      platform: 'siem_c',
      accepted: outcome.created + outcome.duplicates,
      created: outcome.created,
      duplicates: outcome.duplicates,
      index,
    };
  }

  async createCase(input: Case, call: PlatformCall): Promise<string> {
    const kibana = this.#kibana(call, 'cases are opened through the Kibana Cases API');
    const body = kibanaCaseBody(input, kibana);
    const response = await this.#kibanaRequest(call, kibana, {
      method: 'POST',
      path: `${kibana.space === undefined ? '' : `/s/${kibana.space}`}/api/cases`,
      body: JSON.stringify(body),
    });
    if (response.statusCode !== 200) throw this.#kibanaFailure(call, response, 'POST /api/cases');
    let id: unknown;
    try {
      id = (JSON.parse(response.body) as { id?: unknown }).id;
    } catch {
      // Handled below with the other unreadable answers.
    }
    if (typeof id !== 'string' || !id) {
      throw call.errors.request('Kibana answered POST /api/cases with no case id', {
        statusCode: response.statusCode,
        isRetryable: false,
      });
    }
    return id;
  }

  async enrichIndicator(indicator: IndicatorRecord, call: PlatformCall): Promise<EnrichedIndicator> {
    const { index, searchIndexes, lookback } = this.#options;
    const indices = searchIndexes ?? [index];
    let figures: ReturnType<typeof readEnrichment>;
    try {
      const answer = await this.#client.search(
        {
          index: indices,
          ignore_unavailable: true,
          allow_no_indices: true,
          ...enrichmentSearch(indicator, lookback),
        },
        { signal: call.signal },
      );
      figures = readEnrichment(answer as Parameters<typeof readEnrichment>[0]);
    } catch (error) {
      if (error instanceof Error && error.message === 'the search answer has no hit count') {
        throw call.errors.request(`search of ${indices.join(',')}: ${error.message}`, { isRetryable: false });
      }
      throw elasticsearchFailure(call, error, `search of ${indices.join(',')}`);
    }
    const now = this.#settings.clock.now();
    const found = figures.count > 0;
    const first = found ? (figures.firstSeen ?? now) : now;
    const last = found ? (figures.lastSeen ?? first) : now;
    return {
      indicator: indicator.value,
      firstSeen: new Date(first).toISOString(),
      lastSeen: new Date(Math.max(first, last)).toISOString(),
      associatedEvents: figures.count,
      riskScore: found ? Math.max(0, figures.riskScore ?? 0) : 0,
    };
  }

  async testConnection(call: PlatformCall): Promise<ConnectionReport> {
    const checks: Record<string, string> = {};
    try {
      const me = await this.#client.security.authenticate({}, { signal: call.signal });
      checks.elasticsearch = `authenticated as ${me.username} (realm ${me.authentication_realm?.name ?? 'unknown'})`;
    } catch (error) {
      if (!isSecurityOff(error)) throw elasticsearchFailure(call, error, 'authenticate');
      checks.elasticsearch = 'answering; security is off, so no credentials were checked';
    }
    const version = await this.#version(call);
    if (!checks.elasticsearch.includes('security is off')) checks.privileges = await this.#privileges(call);
    if (this.#options.kibana.enabled) checks.kibana = await this.#kibanaCheck(call, this.#options.kibana);
    return { platform: 'siem_c', ...(version === undefined ? {} : { version }), checks };
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** Installs the index template and creates the index, once per platform, unless `manageIndex` is false. */
  async #ensureIndex(call: PlatformCall): Promise<void> {
    if (!this.#options.manageIndex || this.#indexReady) return;
    const { index } = this.#options;
    const options = { signal: call.signal };
    try {
      // GET rather than HEAD: a refusal then carries Elasticsearch's reason (a HEAD answer has no body).
      if (!(await this.#templateExists(index, options))) {
        try {
          await this.#client.indices.putIndexTemplate(
            { name: index, create: true, ...alertIndexTemplate(index) },
            options,
          );
        } catch (error) {
          // Another connector installed it meanwhile: theirs is the same.
          if (!/already exists/.test(elasticsearchReason(responseBody(error), undefined).reason)) throw error;
        }
      }
      if (!(await this.#client.indices.exists({ index }, options))) {
        try {
          await this.#client.indices.create({ index }, options);
        } catch (error) {
          if (elasticsearchReason(responseBody(error), undefined).type !== 'resource_already_exists_exception') {
            throw error;
          }
        }
      }
    } catch (error) {
      throw elasticsearchFailure(
        call,
        error,
        `preparing index ${index} (set manageIndex: false to manage it yourself)`,
      );
    }
    this.#indexReady = true;
  }

  async #templateExists(name: string, options: { signal: AbortSignal }): Promise<boolean> {
    try {
      await this.#client.indices.getIndexTemplate({ name }, options);
      return true;
    } catch (error) {
      if ((error as { meta?: { statusCode?: number } }).meta?.statusCode === 404) return false;
      throw error;
    }
  }

  /** The Elasticsearch version: `GET /`, else this node's info (a cluster without the root endpoint). */
  async #version(call: PlatformCall): Promise<string | undefined> {
    try {
      return (await this.#client.info({}, { signal: call.signal })).version.number;
    } catch {
      call.signal.throwIfAborted();
    }
    try {
      const nodes = await this.#client.nodes.info(
        { node_id: '_local', metric: 'http', filter_path: 'nodes.*.version' },
        { signal: call.signal },
      );
      return Object.values(nodes.nodes ?? {})[0]?.version;
    } catch {
      call.signal.throwIfAborted();
      return undefined;
    }
  }

  /** What the credentials may do on the alert and search indices, in a few words (never a failure by itself). */
  async #privileges(call: PlatformCall): Promise<string> {
    const { index, searchIndexes, manageIndex } = this.#options;
    const wanted = [
      { names: [index], privileges: ['create_doc'] },
      { names: searchIndexes ?? [index], privileges: ['read'] },
    ];
    try {
      const answer = await this.#client.security.hasPrivileges(
        { index: wanted, ...(manageIndex ? { cluster: ['manage_index_templates'] } : {}) },
        { signal: call.signal },
      );
      if (answer.has_all_requested) {
        return `all needed (create_doc, read${manageIndex ? ', manage_index_templates' : ''})`;
      }
      const missing: string[] = [];
      for (const [name, privileges] of Object.entries(answer.index ?? {})) {
        for (const [privilege, granted] of Object.entries(privileges)) {
          if (!granted) missing.push(`${privilege} on ${name}`);
        }
      }
      for (const [privilege, granted] of Object.entries(answer.cluster ?? {})) {
        if (!granted) missing.push(`cluster ${privilege}`);
      }
      return `missing ${missing.join(', ')}`;
    } catch (error) {
      call.signal.throwIfAborted();
      return `not checked (${elasticsearchReason(responseBody(error), undefined).reason})`;
    }
  }

  /**
   * Kibana's status. Only `createCase` needs Kibana, so a Kibana that cannot be reached is reported (and logged as a
   * warning) rather than failing a connection whose alerts and enrichment work: a stack without Kibana passes, and
   * the report says how to stop checking it. Kibana refusing the credentials, or answering unavailable, still fails.
   */
  async #kibanaCheck(call: PlatformCall, kibana: KibanaOptions): Promise<string> {
    try {
      return await this.#kibanaStatus(call, kibana);
    } catch (error) {
      if (!SiemUnreachableError.isInstance(error)) throw error;
      const reason = error.message.slice(error.message.indexOf(' unreachable: ') + ' unreachable: '.length);
      const report = `unreachable at ${kibana.host ?? this.#options.host}:${kibana.port} (${reason}); createCase needs Kibana: set kibana.enabled: false if cases are not used`;
      this.#settings.logger.warn({ platform: 'siem_c', operation: 'testConnection' }, `Kibana ${report}`);
      return report;
    }
  }

  async #kibanaStatus(call: PlatformCall, kibana: KibanaOptions): Promise<string> {
    const response = await this.#kibanaRequest(call, kibana, { method: 'GET', path: '/api/status' });
    let status: { version?: { number?: string }; status?: { overall?: { level?: string; summary?: string } } } = {};
    try {
      status = JSON.parse(response.body) as typeof status;
    } catch {
      // Handled with the status code below.
    }
    const level = status.status?.overall?.level;
    if (response.statusCode === 503 && level !== undefined) {
      throw call.errors.request(`Kibana is ${level}: ${status.status?.overall?.summary ?? 'no summary'}`, {
        statusCode: 503,
        isRetryable: true,
        ...retryAfterOf(response),
      });
    }
    if (response.statusCode !== 200) throw this.#kibanaFailure(call, response, 'GET /api/status');
    const version = status.version?.number;
    return `${level ?? 'answering'}${version === undefined ? '' : ` (${version})`}`;
  }

  #kibana(call: PlatformCall, why: string): KibanaOptions {
    const { kibana } = this.#options;
    if (!kibana.enabled) throw call.errors.unsupported(`Kibana is turned off (kibana.enabled: false); ${why}`);
    return kibana;
  }

  #kibanaRequest(
    call: PlatformCall,
    kibana: KibanaOptions,
    request: { method: 'GET' | 'POST'; path: string; body?: string },
  ): Promise<SiemHttpResponse> {
    const { credentials, tokenScheme } = this.#options;
    const authorization =
      'password' in credentials
        ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
        : `${tokenScheme} ${credentials.token}`;
    return this.#settings.http.request(call, {
      method: request.method,
      host: kibana.host ?? this.#options.host,
      port: kibana.port,
      path: request.path,
      headers: {
        authorization,
        accept: 'application/json',
        'elastic-api-version': KIBANA_API_VERSION,
        ...(request.method === 'GET' ? {} : { 'kbn-xsrf': 'threatlib', 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: request.body }),
    });
  }

  #kibanaFailure(call: PlatformCall, response: SiemHttpResponse, what: string) {
    const reason = kibanaReason(response.body);
    // A 403 about the licence (assigning users needs Platinum) is not about the credentials, which Kibana accepted.
    return call.errors.fromStatus(response.statusCode, `Kibana ${what}: ${reason}`, {
      ...retryAfterOf(response),
      forbiddenIsAuth: !/license/i.test(reason),
    });
  }
}

function retryAfterOf(response: SiemHttpResponse): { retryAfterMs?: number } {
  const ms = retryAfter(response.headers);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/** Whether an authenticate failure says that security is turned off on the cluster (then there is nothing to check). */
function isSecurityOff(error: unknown): boolean {
  const { reason } = elasticsearchReason(responseBody(error), undefined);
  return /security (features )?(is not enabled|are not enabled|must be explicitly enabled)|security is disabled/i.test(
    reason,
  );
}

function responseBody(error: unknown): unknown {
  return (error as { meta?: { body?: unknown } } | undefined)?.meta?.body;
}

function pemText(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}
