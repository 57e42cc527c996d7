import { ConfigurationError, InsecureEndpointError, silentLogger } from '@threatlib/core';
import type { Clock } from '@threatlib/core/integration';
import { KIBANA_DEFAULTS, type RunningSiemEmulator, startSiemEmulator } from '@threatlib/siem-emulator';
import {
  describeWithElasticsearch,
  documents,
  dropIndex,
  E2E_ELASTICSEARCH,
  E2E_ELASTICSEARCH_ADDRESS,
  elasticsearch,
  uniqueIndex,
} from '@threatlib/test-utils/elasticsearch';
import { afterEach, expect, it } from 'vitest';
import type { SiemConnectorOptions } from '../../connector/connector-options.js';
import { SiemAuthenticationError } from '../../connector/siem-authentication-error.js';
import { SIEMConnector, type SiemConnectorRuntime } from '../../connector/siem-connector.js';
import type { SiemError } from '../../connector/siem-error.js';
import { SiemRequestError } from '../../connector/siem-request-error.js';
import { SiemUnreachableError } from '../../connector/siem-unreachable-error.js';
import { SiemUnsupportedError } from '../../connector/siem-unsupported-error.js';
import { closedPort } from '../../test-support/closed-port.js';
import { type ElasticsearchProxy, startElasticsearchProxy } from '../../test-support/elasticsearch-proxy.js';

const HOUR = 3_600_000;
const credentials = E2E_ELASTICSEARCH.auth;

let emulator: RunningSiemEmulator | undefined;
let proxy: ElasticsearchProxy | undefined;
const connectors: SIEMConnector[] = [];
const indices: string[] = [];

afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.stop()));
  await proxy?.close();
  proxy = undefined;
  await emulator?.close();
  emulator = undefined;
  for (const index of indices.splice(0)) await dropIndex(index);
});

async function kibana(options: Parameters<typeof startSiemEmulator>[0] = {}): Promise<RunningSiemEmulator> {
  emulator = await startSiemEmulator({
    tls: false,
    kibana: { users: { [credentials.username]: credentials.password } },
    ...options,
  });
  return emulator;
}

function index(label: string): string {
  const name = uniqueIndex(label);
  indices.push(name);
  return name;
}

function connector(options: Partial<SiemConnectorOptions> = {}, runtime: SiemConnectorRuntime = {}): SIEMConnector {
  const siem = new SIEMConnector(
    {
      platform: 'siem_c',
      host: E2E_ELASTICSEARCH_ADDRESS.host,
      port: E2E_ELASTICSEARCH_ADDRESS.port,
      protocol: 'http',
      enforceHttps: false,
      credentials,
      timeout: 10_000,
      retries: 0,
      retryDelay: 1,
      kibana: { port: emulator?.port ?? 1 },
      ...options,
    } as SiemConnectorOptions,
    runtime,
  );
  connectors.push(siem);
  return siem;
}

async function failure(promise: Promise<unknown>): Promise<SiemError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as SiemError,
  );
}

describeWithElasticsearch('siem_c on the real Elasticsearch: the documented example', () => {
  it('runs as written: testConnection, sendAlert, createCase, enrichIndicator', async () => {
    const kb = await kibana();
    const alerts = index('documented');
    const siem = new SIEMConnector({
      platform: 'siem_c',
      host: E2E_ELASTICSEARCH_ADDRESS.host,
      port: E2E_ELASTICSEARCH_ADDRESS.port,
      credentials: E2E_ELASTICSEARCH.auth,
      timeout: 30000,
      retries: 3,
      // What the local services need besides the documented options: plain HTTP, our index, the Kibana emulator.
      protocol: 'http',
      enforceHttps: false,
      index: alerts,
      kibana: { port: kb.port },
    });
    connectors.push(siem);

    const report = await siem.testConnection();
    expect(report).toEqual({
      platform: 'siem_c',
      version: '8.19.21',
      checks: {
        elasticsearch: 'authenticated as threatlib (realm default_file)',
        privileges: 'all needed (create_doc, read, manage_index_templates)',
        kibana: 'available (8.19.0)',
      },
    });

    const timestamp = new Date(Date.now() - HOUR).toISOString();
    const receipt = await siem.sendAlert({
      title: 'Malicious IP contacted',
      severity: 'high',
      description: 'Outbound connection to a known C2 server',
      indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 90, source: 'feed_otx' }],
      timestamp,
    });
    expect(receipt).toMatchObject({ platform: 'siem_c', accepted: 1, created: 1, duplicates: 0, index: alerts });
    const stored = [...(await documents(alerts)).entries()];
    expect(stored).toHaveLength(1);
    const [id, source] = stored[0] ?? [];
    expect(source).toMatchObject({
      '@timestamp': timestamp,
      message: 'Malicious IP contacted: Outbound connection to a known C2 server',
      event: { kind: 'alert', category: ['threat'], type: ['indicator'], id, severity: 8, risk_score: 8 },
      rule: { name: 'Malicious IP contacted' },
      threat: { indicator: { type: 'ipv4-addr', ip: '198.51.100.7', confidence: 'High', provider: 'feed_otx' } },
      related: { ip: ['198.51.100.7'] },
      threatlib: { alert: { severity: 'high' } },
    });
    // The template the connector installed holds explicit mappings: the indicator is an ip field.
    const mapping = await elasticsearch('GET', `/${alerts}/_mapping/field/threat.indicator.ip`);
    expect(JSON.stringify(mapping.json)).toContain('"type":"ip"');

    const caseId = await siem.createCase({
      title: 'Phishing campaign',
      description: 'Credential harvesting against finance',
      priority: 'critical',
      assignee: 'analyst@example.com',
      indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
    });
    const opened = kb.kibana.cases.find((c) => c.id === caseId);
    expect(opened).toMatchObject({
      title: 'Phishing campaign',
      severity: 'critical',
      owner: 'securitySolution',
      connector: { id: 'none', name: 'none', type: '.none', fields: null },
      settings: { syncAlerts: false },
      assignees: [],
      tags: ['threatlib', 'assignee:analyst@example.com', 'ioc:login-example.com'],
      created_by: { username: 'threatlib' },
    });
    expect(opened?.description).toContain('Credential harvesting against finance');
    expect(opened?.description).toContain('- domain `login-example.com` (source feed\\_urls)');
    expect(opened?.description).toContain('Assignee: analyst@example\\.com');

    await elasticsearch('POST', `/${alerts}/_refresh`);
    expect(await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' })).toEqual({
      indicator: '198.51.100.7',
      firstSeen: timestamp,
      lastSeen: timestamp,
      associatedEvents: 1,
      riskScore: 8,
    });
  });
});

describeWithElasticsearch('siem_c bulk delivery on the real Elasticsearch', () => {
  it('one document refused inside an HTTP 200 fails the call naming that alert and why; the others are written; not retried', async () => {
    await kibana();
    const alerts = index('conflict');
    // An index someone else created, where threat.indicator.url.full is an ip field: a URL cannot go there.
    const created = await elasticsearch('PUT', `/${alerts}`, {
      mappings: {
        properties: {
          threat: { properties: { indicator: { properties: { url: { properties: { full: { type: 'ip' } } } } } } },
        },
      },
    });
    expect(created.status).toBe(200);
    const siem = connector({ index: alerts, retries: 3 });
    const error = await failure(
      siem.sendAlerts([
        { id: 'alert-ip-1', title: 'ip one', severity: 'low', indicators: [{ type: 'ip', value: '192.0.2.1' }] },
        {
          id: 'alert-url',
          title: 'the url',
          severity: 'low',
          indicators: [{ type: 'url', value: 'http://bad-host.com/x' }],
        },
        { id: 'alert-ip-2', title: 'ip two', severity: 'low', indicators: [{ type: 'ip', value: '192.0.2.2' }] },
      ]),
    );
    expect(SiemRequestError.isInstance(error)).toBe(true);
    expect(error.isRetryable).toBe(false);
    expect(error.attempts).toBe(1);
    expect(error.message).toMatch(
      /^Elastic sendAlert: bulk request to threatlib-test-conflict-\S+: 1 of 3 alerts refused \(2 written\): alert 2 \(id alert-url, "the url"\): HTTP 400 document_parsing_exception: .*failed to parse field \[threat\.indicator\.url\.full\] of type \[ip\]/,
    );
    expect([...(await documents(alerts)).keys()].sort()).toEqual(['alert-ip-1', 'alert-ip-2']);
  });

  it('retries an item Elasticsearch rejected with 429, and counts what the first attempt wrote once', async () => {
    await kibana();
    const alerts = index('rejected');
    proxy = await startElasticsearchProxy(E2E_ELASTICSEARCH_ADDRESS);
    // The first bulk request reaches Elasticsearch (both documents are written), but its answer says the second
    // item was rejected, as a full write queue answers.
    proxy.failNext(
      1,
      {
        kind: 'rewrite',
        rewrite: (body) => {
          const items = body.items as Record<string, Record<string, unknown>>[];
          const second = items[1]?.create;
          if (second) {
            second.status = 429;
            second.error = {
              type: 'es_rejected_execution_exception',
              reason: 'rejected execution of primary operation on EsThreadPoolExecutor[name = node/write]',
            };
          }
          return { ...body, errors: true };
        },
      },
      '/_bulk',
    );
    const siem = connector({ index: alerts, port: proxy.port, retries: 2 });
    const receipt = await siem.sendAlerts([
      { id: 'first', title: 'first', severity: 'low' },
      { id: 'second', title: 'second', severity: 'low' },
    ]);
    expect(receipt).toMatchObject({ accepted: 2, batches: 1 });
    expect(proxy.requests.filter((r) => r.path.startsWith('/_bulk'))).toHaveLength(2);
    // Each alert once, under its id: the retry's create actions met the documents the first attempt wrote (409).
    expect([...(await documents(alerts)).keys()].sort()).toEqual(['first', 'second']);
    const bulk = proxy.requests.find((r) => r.path.startsWith('/_bulk'));
    expect(bulk?.body.split('\n')[0]).toBe(`{"create":{"_index":"${alerts}","_id":"first"}}`);
  });

  it('a repeated delivery of the same alert is acknowledged as already there, not written twice', async () => {
    await kibana();
    const alerts = index('repeat');
    const siem = connector({ index: alerts });
    const alert = { id: 'same-alert', title: 'again', severity: 'medium' as const };
    expect(await siem.sendAlert(alert)).toMatchObject({ accepted: 1, created: 1, duplicates: 0 });
    expect(await siem.sendAlert(alert)).toMatchObject({ accepted: 1, created: 0, duplicates: 1 });
    expect((await documents(alerts)).size).toBe(1);
  });

  it('waits for the Retry-After of a 429 before retrying', async () => {
    await kibana();
    const alerts = index('retry-after');
    proxy = await startElasticsearchProxy(E2E_ELASTICSEARCH_ADDRESS);
    const waits: number[] = [];
    // Timers of the attempt timeout run for real; the waits between retries are recorded and pass at once.
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout(callback, ms) {
        if (ms !== 10_000) waits.push(ms);
        return setTimeout(callback, ms === 10_000 ? ms : 0);
      },
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
    proxy.failNext(1, { kind: 'busy', retryAfter: 2 }, '/_bulk');
    const siem = connector(
      { index: alerts, port: proxy.port, retries: 2, retryDelay: 10 },
      { clock, random: () => 0.5 },
    );
    await siem.sendAlert({ title: 'after 429', severity: 'low' });
    expect(waits).toEqual([2000]);
    expect((await documents(alerts)).size).toBe(1);
  });

  it('writes to a data stream or an index managed elsewhere with manageIndex: false (no template call)', async () => {
    await kibana();
    const alerts = index('unmanaged');
    proxy = await startElasticsearchProxy(E2E_ELASTICSEARCH_ADDRESS);
    await connector({ index: alerts, port: proxy.port, manageIndex: false }).sendAlert({ title: 'x', severity: 'low' });
    expect(proxy.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['POST /_bulk']);
  });
});

describeWithElasticsearch('siem_c enrichment on the real Elasticsearch', () => {
  it('finds what was indexed: first and last time, count and highest risk score, across the searched indices', async () => {
    await kibana();
    const alerts = index('enrich-alerts');
    const logs = index('enrich-logs');
    const now = Date.now();
    const at = (hours: number) => new Date(now - hours * HOUR).toISOString();
    const value = 'c2.enrich-test.com';
    const siem = connector({ index: alerts, searchIndexes: [alerts, logs], lookback: '2d' });
    await siem.sendAlerts([
      { title: 'a', severity: 'medium', riskScore: 5, indicators: [{ type: 'domain', value }], timestamp: at(10) },
      { title: 'b', severity: 'high', riskScore: 7.5, indicators: [{ type: 'domain', value }], timestamp: at(2) },
      // Outside the two-day lookback: not counted.
      { title: 'c', severity: 'critical', riskScore: 10, indicators: [{ type: 'domain', value }], timestamp: at(72) },
      // Another domain: not counted.
      {
        title: 'd',
        severity: 'critical',
        riskScore: 9,
        indicators: [{ type: 'domain', value: `x.${value}` }],
        timestamp: at(1),
      },
    ]);
    // A DNS event in a log index, older than both alerts in range, without a risk score.
    await elasticsearch('PUT', `/${logs}/_doc/dns-1`, { '@timestamp': at(20), dns: { question: { name: value } } });
    await elasticsearch('POST', `/${alerts},${logs}/_refresh`);
    expect(await siem.enrichIndicator({ type: 'domain', value: 'C2.Enrich-Test.com' })).toEqual({
      indicator: value,
      firstSeen: at(20),
      lastSeen: at(2),
      associatedEvents: 3,
      riskScore: 7.5,
    });
  });

  it('answers zero events, with the search time, for an indicator never seen or an index not yet created', async () => {
    await kibana();
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    const clock: Clock = { now: () => now, setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
    const siem = connector({ index: index('enrich-none') }, { clock });
    expect(await siem.enrichIndicator({ type: 'sha256', value: 'a'.repeat(64) })).toEqual({
      indicator: 'a'.repeat(64),
      firstSeen: '2026-03-01T12:00:00.000Z',
      lastSeen: '2026-03-01T12:00:00.000Z',
      associatedEvents: 0,
      riskScore: 0,
    });
  });
});

describeWithElasticsearch('siem_c refusals and failures', () => {
  it('a wrong password: "authentication failed: <Elasticsearch’s reason>", never retried, no password shown', async () => {
    await kibana();
    const wrong = 'wrong-password-91c4';
    const siem = connector({ credentials: { username: credentials.username, password: wrong }, retries: 3 });
    const error = await failure(siem.testConnection());
    expect(SiemAuthenticationError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'authentication failed: Elasticsearch: unable to authenticate user [threatlib] for REST request [/_security/_authenticate]',
    );
    expect(error.statusCode).toBe(401);
    expect(error.attempts).toBe(1);
    const sent = await failure(siem.sendAlert({ title: 'x', severity: 'low' }));
    expect(sent.message).toMatch(/^authentication failed: Elasticsearch: unable to authenticate user \[threatlib\]/);
    for (const text of [error.message, sent.message, JSON.stringify(error), String(error.stack)]) {
      expect(text).not.toContain(wrong);
    }
  });

  it('Elasticsearch down: retried, then "unreachable" with the address and the network error', async () => {
    await kibana();
    const port = await closedPort();
    const error = await failure(connector({ port, retries: 2 }).testConnection());
    expect(SiemUnreachableError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      `Elastic at 127.0.0.1:${port} unreachable: connection refused (ECONNREFUSED) (after 3 attempts)`,
    );
  });

  it('Kibana refusing the credentials fails testConnection, saying it was Kibana', async () => {
    await kibana({ kibana: { users: { someone: 'else' } } });
    const refused = await failure(connector().testConnection());
    expect(SiemAuthenticationError.isInstance(refused)).toBe(true);
    expect(refused.message).toBe(
      'authentication failed: Kibana GET /api/status: [security_exception\n\tRoot causes:\n\t\tsecurity_exception: unable to authenticate user [threatlib] for REST request [/_security/_authenticate]]: unable to authenticate user [threatlib] for REST request [/_security/_authenticate]',
    );
  });

  it('a stack without Kibana passes testConnection: Kibana is reported unreachable, with the option that stops checking it', async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (_fields: unknown, message?: string) => void warnings.push(String(message)),
    };
    const report = await connector({ kibana: { port } }, { logger }).testConnection();
    const unreachable = `unreachable at 127.0.0.1:${port} (connection refused (ECONNREFUSED)); createCase needs Kibana: set kibana.enabled: false if cases are not used`;
    expect(report.checks).toEqual({
      elasticsearch: expect.stringMatching(/^authenticated as threatlib /),
      privileges: expect.any(String),
      kibana: unreachable,
    });
    expect(warnings).toEqual([`Kibana ${unreachable}`]);
  });

  it('an unavailable Kibana is a retryable failure; a degraded one is reported', async () => {
    const kb = await kibana();
    kb.kibana.statusLevel = 'degraded';
    expect((await connector().testConnection()).checks.kibana).toBe('degraded (8.19.0)');
    kb.kibana.statusLevel = 'unavailable';
    const error = await failure(connector().testConnection());
    expect(error.message).toBe('Elastic testConnection: Kibana is unavailable: Kibana is unavailable (emulated)');
    expect(error.isRetryable).toBe(true);
  });
});

describeWithElasticsearch('siem_c cases in Kibana', () => {
  it('maps the assignee e-mail to a profile uid, in a space, and cuts a long title to Kibana’s 160 characters', async () => {
    const kb = await kibana({ kibana: { users: { [credentials.username]: credentials.password }, spaces: ['soc'] } });
    const siem = connector({
      kibana: {
        port: kb.port,
        space: 'soc',
        tags: ['team-red'],
        assignees: { 'Analyst@Example.com': 'u_mGBROF_q5bmFCATbLXAcCwKa0k8JvONAwSruelyKA5E_0' },
      },
    });
    const title = `Campaign ${'x'.repeat(200)}`;
    const id = await siem.createCase({ title, priority: 'HIGH', assignee: 'analyst@example.com', indicators: [] });
    const opened = kb.kibana.cases.find((c) => c.id === id);
    expect(opened).toMatchObject({
      space: 'soc',
      severity: 'high',
      assignees: [{ uid: 'u_mGBROF_q5bmFCATbLXAcCwKa0k8JvONAwSruelyKA5E_0' }],
      tags: ['threatlib', 'team-red'],
    });
    expect(opened?.title).toHaveLength(160);
    expect(opened?.title.endsWith('…')).toBe(true);
    expect(opened?.description).toContain(title);
    expect(opened?.description).toContain('(no description given)');
  });

  it('says what Kibana refused, in its words, and does not call a licence refusal an authentication failure', async () => {
    const kb = await kibana({ kibana: { users: { [credentials.username]: credentials.password }, license: 'basic' } });
    const siem = connector({ kibana: { port: kb.port, assignees: { 'a@example.com': 'u_1' } } });
    const error = await failure(siem.createCase({ title: 't', priority: 'low', assignee: 'a@example.com' }));
    expect(SiemRequestError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'Elastic createCase: HTTP 403: Kibana POST /api/cases: Failed to create case: Error: In order to assign users to cases, you must be subscribed to an Elastic Platinum license',
    );
    expect(error.isRetryable).toBe(false);
  });

  it('retries a busy Kibana, honouring its Retry-After', async () => {
    const kb = await kibana();
    kb.kibana.busyRetryAfter = 3;
    kb.failNext(1, 'busy', 'kibana');
    const waits: number[] = [];
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout(callback, ms) {
        if (ms !== 10_000) waits.push(ms);
        return setTimeout(callback, ms === 10_000 ? ms : 0);
      },
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
    const id = await connector({ retries: 1 }, { clock, random: () => 0.5 }).createCase({
      title: 't',
      priority: 'low',
    });
    expect(waits).toEqual([3000]);
    expect(kb.kibana.cases.map((c) => c.id)).toEqual([id]);
  });

  it('with kibana.enabled false, createCase is unsupported and testConnection leaves Kibana out', async () => {
    const siem = connector({ kibana: { enabled: false } });
    const error = await failure(siem.createCase({ title: 't', priority: 'low' }));
    expect(SiemUnsupportedError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/Kibana is turned off \(kibana.enabled: false\)/);
    expect(Object.keys((await siem.testConnection()).checks)).toEqual(['elasticsearch', 'privileges']);
  });
});

describeWithElasticsearch('siem_c options', () => {
  it('refuses plain HTTP unless enforceHttps is false', () => {
    expect(() => connector({ enforceHttps: undefined })).toThrow(InsecureEndpointError);
  });

  it('names bad options, with the API key token form accepted', () => {
    expect(() => connector({ index: 'Alerts' })).toThrow(ConfigurationError);
    expect(() => connector({ index: 'Alerts' })).toThrow(/index: must be lower case/);
    expect(() => connector({ lookback: 'forever' })).toThrow(/lookback: expected a number and a unit/);
    expect(() => connector({ kibana: { assignees: { 'not-an-email': 'u' } } })).toThrow(
      /kibana\.assignees\.not-an-email: expected an e-mail address as the key/,
    );
    expect(() => connector({ credentials: { token: KIBANA_DEFAULTS.apiKey } })).not.toThrow();
    expect(new SIEMConnector({ platform: 'siem_c', host: 'es.example.com', credentials }).address).toBe(
      'es.example.com:9200',
    );
  });
});
