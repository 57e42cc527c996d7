// The SIEM connector of ../shared/INTERFACE.md (sections 2.1–2.4, 2.6, 4.2, 5 and 7.2), as a user porting from that
// document writes it: `new SIEMConnector({platform, host, port, credentials, timeout, retries})` for each production
// platform, then `sendAlert`, `createCase`, `enrichIndicator` and `testConnection`, with the documented alert and
// case. siem_a (Splunk), siem_b (QRadar) and siem_d (Microsoft Sentinel) talk to @threatlib/siem-emulator; siem_c
// (Elastic) to the real Elasticsearch of the e2e services, and to the emulator's Kibana for its cases. Then a client
// built with `integrations.siem` (4.2), and one with `enterprise.siemIntegration` (8.1) sending CEF to the e2e rsyslog.
//
// Besides the documented options, each platform gets only what pointing it at a local stand-in takes: the emulator's
// certificate authority (`tls.ca`), the port its HEC or syslog listener or Azure endpoints answer on, and plain HTTP
// for the e2e Elasticsearch (`protocol: 'http'`, `enforceHttps: false`). What a platform needs in production is in
// packages/siem/README.md, platform by platform.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { type AlertInput, type CaseInput, ThreatClient } from '@threatlib/core';
import { parseCef, parseLeef, SIEMConnector, type SiemConnectorOptions } from '@threatlib/siem';
import {
  QRADAR_DEFAULTS,
  type RunningSiemEmulator,
  SENTINEL_DEFAULTS,
  SPLUNK_DEFAULTS,
  startSiemEmulator,
  TEST_CA,
} from '@threatlib/siem-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describeWith,
  type EmulatedFeeds,
  eventually,
  RSYSLOG_MESSAGES,
  servicePort,
  startEmulatedFeeds,
  uniqueName,
} from './support.js';

/** The e2e Elasticsearch and the test user e2e/services.d/elasticsearch.sh gives it. */
const ELASTICSEARCH = {
  host: '127.0.0.1',
  port: servicePort('elasticsearch'),
  username: 'threatlib',
  password: 'threatlib-e2e-password',
};

/** A loopback port nothing listens on (one the system just handed out and took back): "the host is down". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** The alert of INTERFACE.md 2.1 / 2.2: a domain indicator with its confidence (0 to 100). */
function documentedAlert(domain: string): AlertInput {
  return {
    title: 'Malicious domain contacted',
    severity: 'high',
    description: 'Outbound connection to a known phishing domain',
    indicators: [{ type: 'domain', value: domain, confidence: 90 }],
    timestamp: new Date().toISOString(),
  };
}

/** The case of INTERFACE.md 2.3: priority `critical`, an assignee's e-mail, indicators with their source. */
function documentedCase(domain: string): CaseInput {
  return {
    title: 'Phishing campaign',
    description: 'Credential harvesting against finance',
    priority: 'critical',
    assignee: 'analyst@example.com',
    indicators: [{ type: 'domain', value: domain, source: 'feed_urls' }],
  };
}

/** One production platform: how to reach it and how to look inside it. */
interface Platform {
  /** The documented options and what the local stand-in needs. */
  options(): SiemConnectorOptions;
  /** Options the SIEM refuses as credentials. */
  wrongCredentials(): Partial<SiemConnectorOptions>;
  /** Options pointing every address of the platform at `port`, where nothing listens. */
  down(port: number): Partial<SiemConnectorOptions>;
  /** The indicator values of the alerts the SIEM holds with `title`. */
  alertIndicators(title: string): Promise<string[][]>;
  /** The title of the case the SIEM holds under `id`. */
  caseTitle(id: string): Promise<string | undefined>;
  /** Makes what was written searchable, where the SIEM needs it (Elasticsearch's refresh). */
  settle?(): Promise<void>;
}

const connectors: SIEMConnector[] = [];
/** Every connector an example makes is stopped after it. */
const track = (connector: SIEMConnector) => {
  connectors.push(connector);
  return connector;
};

afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.stop()));
});

/**
 * The examples of 4.2 for one platform, with the documented constructor options `timeout: 30000, retries: 3` (the
 * failing ones with fewer retries, so that a test does not wait out the backoff).
 */
function documentedExamples(name: string, platform: () => Platform): void {
  const connect = (overrides: Partial<SiemConnectorOptions> = {}) =>
    track(new SIEMConnector({ ...platform().options(), ...overrides } as SiemConnectorOptions));

  it(`${name}: sendAlert(alert) delivers the documented alert`, async () => {
    const siem = connect();
    const domain = `${uniqueName('alert').replaceAll('.', '-')}.com`;
    await siem.sendAlert(documentedAlert(domain));
    await platform().settle?.();
    expect(await platform().alertIndicators('Malicious domain contacted')).toContainEqual([domain]);
  });

  it(`${name}: createCase(caseData) resolves with the identifier the SIEM holds the case under`, async () => {
    const siem = connect();
    const domain = `${uniqueName('case').replaceAll('.', '-')}.com`;
    const caseId = await siem.createCase(documentedCase(domain));
    expect(typeof caseId).toBe('string');
    expect(caseId.length).toBeGreaterThan(0);
    await platform().settle?.();
    expect(await platform().caseTitle(caseId)).toBe('Phishing campaign');
  });

  it(`${name}: enrichIndicator({type, value}) resolves with {indicator, firstSeen, lastSeen, associatedEvents, riskScore}`, async () => {
    const siem = connect();
    const domain = `${uniqueName('enrich').replaceAll('.', '-')}.com`;
    const alert = documentedAlert(domain);
    await siem.sendAlert(alert);
    await platform().settle?.();
    const enriched = await siem.enrichIndicator({ type: 'domain', value: domain });
    expect(Object.keys(enriched).sort()).toEqual(
      ['associatedEvents', 'firstSeen', 'indicator', 'lastSeen', 'riskScore'].sort(),
    );
    expect(enriched).toMatchObject({
      indicator: domain,
      firstSeen: expect.stringMatching(ISO),
      lastSeen: expect.stringMatching(ISO),
      associatedEvents: 1,
      riskScore: expect.any(Number),
    });
    // The one event the SIEM holds is the alert just sent: first and last seen are its time.
    expect(Date.parse(enriched.firstSeen)).toBe(Date.parse(alert.timestamp as string));
    expect(enriched.lastSeen).toBe(enriched.firstSeen);
    expect(Number.isInteger(enriched.associatedEvents)).toBe(true);
  });

  it(`${name}: testConnection() resolves with the right credentials`, async () => {
    await expect(connect().testConnection()).resolves.toMatchObject({ platform: platform().options().platform });
  });

  it(`${name}: testConnection() with wrong credentials rejects, the message saying authentication failed`, async () => {
    await expect(connect(platform().wrongCredentials()).testConnection()).rejects.toThrow(/^authentication failed: \S/);
  });

  it(`${name}: testConnection() with the host down rejects, the message saying unreachable`, async () => {
    const port = await closedPort();
    const error = await connect({ ...platform().down(port), retries: 1, retryDelay: 10 })
      .testConnection()
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/unreachable/);
    expect((error as Error).message).not.toMatch(/authentication/);
  });
}

describe('4.2 SIEMConnector on the emulated SIEMs (siem_a Splunk, siem_b QRadar, siem_d Microsoft Sentinel)', () => {
  let emulator: RunningSiemEmulator;

  beforeAll(async () => {
    // QRadar's listener reads LEEF with the strict reader of @threatlib/siem, as QRadar's DSM would.
    emulator = await startSiemEmulator({ qradar: { parseLeef } });
  });

  afterAll(async () => {
    await emulator?.close();
  });

  documentedExamples('siem_a (Splunk)', () => ({
    options: () => ({
      platform: 'siem_a',
      host: emulator.host,
      port: emulator.port,
      // The documented {username, password}: the connector reads the HEC token of the input named threatlib.
      credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
      timeout: 30000,
      retries: 3,
      // The emulator serves HEC on its one port (Splunk: 8088 beside the management port 8089).
      hec: { port: emulator.port },
      tls: { ca: TEST_CA },
    }),
    wrongCredentials: () => ({ credentials: { username: SPLUNK_DEFAULTS.username, password: 'not-the-password' } }),
    down: (port) => ({ port, hec: { port } }),
    alertIndicators: async (title) =>
      emulator.splunk.events
        .filter((e) => e.sourcetype === 'threatlib:alert')
        .map((e) => e.event as { title: string; indicators: { value: string }[] })
        .filter((event) => event.title === title)
        .map((event) => event.indicators.map((indicator) => indicator.value)),
    caseTitle: async (id) =>
      emulator.splunk.events
        .filter((e) => e.index === 'notable')
        .map((e) => e.event as { case_id?: string; rule_title?: string })
        .find((event) => event.case_id === id)?.rule_title,
  }));

  documentedExamples('siem_b (QRadar)', () => ({
    options: () => ({
      platform: 'siem_b',
      host: emulator.host,
      port: emulator.port,
      credentials: { token: QRADAR_DEFAULTS.token },
      timeout: 30000,
      retries: 3,
      // Events reach QRadar by syslog: the emulator's TLS listener (QRadar's TLS Syslog: 6514).
      syslog: { port: emulator.qradar.syslogTlsPort },
      tls: { ca: TEST_CA },
    }),
    wrongCredentials: () => ({ credentials: { token: '0badc0de-0000-4000-8000-000000000000' } }),
    down: (port) => ({ port, syslog: { port } }),
    alertIndicators: async (title) =>
      emulator.qradar.events
        .filter((event) => event.eventId === 'ThreatAlert' && event.properties.title === title)
        .map((event) => (JSON.parse(event.properties.indicators ?? '[]') as { value: string }[]).map((i) => i.value)),
    caseTitle: async (id) =>
      emulator.qradar.events.find((event) => event.eventId === 'ThreatCase' && event.properties.caseId === id)
        ?.properties.title,
  }));

  documentedExamples('siem_d (Microsoft Sentinel)', () => {
    const azure = (port: number) => `https://${emulator.host}:${port}`;
    const endpoints = (port: number) => ({
      port,
      authorityHost: azure(port),
      logAnalyticsEndpoint: azure(port),
      armEndpoint: azure(port),
    });
    return {
      options: () => ({
        platform: 'siem_d',
        host: emulator.host,
        // The Entra ID application: {username: its client id, password: its client secret}.
        credentials: { username: SENTINEL_DEFAULTS.clientId, password: SENTINEL_DEFAULTS.clientSecret },
        timeout: 30000,
        retries: 3,
        tenantId: SENTINEL_DEFAULTS.tenantId,
        dataCollectionRuleId: SENTINEL_DEFAULTS.dataCollectionRuleId,
        workspaceId: SENTINEL_DEFAULTS.workspaceId,
        subscriptionId: SENTINEL_DEFAULTS.subscriptionId,
        resourceGroup: SENTINEL_DEFAULTS.resourceGroup,
        workspaceName: SENTINEL_DEFAULTS.workspaceName,
        // Entra ID, Log Analytics and ARM are the emulator, on the data collection endpoint's port.
        ...endpoints(emulator.port),
        tls: { ca: TEST_CA },
      }),
      wrongCredentials: () => ({
        credentials: { username: SENTINEL_DEFAULTS.clientId, password: 'not~the~client~secret' },
      }),
      down: endpoints,
      alertIndicators: async (title) =>
        emulator.sentinel
          .rows()
          .filter((row) => row.Title === title)
          .map((row) => (row.Indicators as { value: string }[]).map((i) => i.value)),
      caseTitle: async (id) => {
        const incident = emulator.sentinel.incidents.get(id.toLowerCase());
        return incident === undefined ? undefined : String(incident.properties.title);
      },
    };
  });
});

describeWith(['elasticsearch'], '4.2 SIEMConnector on Elasticsearch (siem_c), cases on Kibana', () => {
  let kibana: RunningSiemEmulator;
  const index = `threatlib-test-${uniqueName('siem').replaceAll('.', '-').toLowerCase()}`;
  const { host, port, username, password } = ELASTICSEARCH;
  const basic = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const elasticsearch = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://${host}:${port}${path}`, {
      method,
      headers: { authorization: basic, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    // Kibana (plain HTTP, like the e2e Elasticsearch: the connector's protocol is shared) knows the same user.
    kibana = await startSiemEmulator({ tls: false, kibana: { users: { [username]: password } } });
  });

  afterAll(async () => {
    await kibana?.close();
    // The connector made the index and its template (named after it) at first use.
    await elasticsearch('DELETE', `/${index}?ignore_unavailable=true`);
    await elasticsearch('DELETE', `/_index_template/${index}`);
  });

  documentedExamples('siem_c (Elastic)', () => ({
    options: () => ({
      platform: 'siem_c',
      host,
      port,
      credentials: { username, password },
      timeout: 30000,
      retries: 3,
      protocol: 'http',
      enforceHttps: false,
      index,
      kibana: { port: kibana.port },
    }),
    wrongCredentials: () => ({ credentials: { username, password: 'not-the-password' } }),
    down: (closed) => ({ port: closed, kibana: { port: closed } }),
    async alertIndicators(title) {
      const answer = await elasticsearch('POST', `/${index}/_search`, {
        size: 100,
        query: { term: { 'rule.name': title } },
      });
      const hits = (answer.hits as { hits: { _source: { threat: { indicator: unknown } } }[] }).hits;
      return hits.map((hit) => {
        const indicator = hit._source.threat.indicator;
        const list = (Array.isArray(indicator) ? indicator : [indicator]) as { url?: { domain?: string } }[];
        return list.map((item) => item.url?.domain ?? '');
      });
    },
    caseTitle: async (id) => kibana.kibana.cases.find((c) => c.id === id)?.title,
    async settle() {
      await elasticsearch('POST', `/${index}/_refresh?ignore_unavailable=true`);
    },
  }));
});

describe('4.2 a client constructed with integrations.siem', () => {
  let feeds: EmulatedFeeds;
  let emulator: RunningSiemEmulator;
  let client: ThreatClient | undefined;

  beforeAll(async () => {
    feeds = await startEmulatedFeeds();
    feeds.emulator.script('198.51.100.23', 'malicious');
    emulator = await startSiemEmulator();
  });

  afterAll(async () => {
    await client?.stop();
    await emulator?.close();
    await feeds?.emulator.close();
  });

  it('delivers the alert of a threat it concludes to the SIEM (siem_a), with no other code', async () => {
    client = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      // The emulated feeds' evidence is old, so its confidence stays low: thresholds it clears (as in client.test.ts).
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        siem: {
          platform: 'siem_a',
          host: emulator.host,
          port: emulator.port,
          credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
          timeout: 30000,
          retries: 3,
          // The emulator is HTTPS (enforceHttps: false above is for the feed emulator's plain HTTP).
          protocol: 'https',
          hec: { port: emulator.port },
          tls: { ca: TEST_CA },
        },
      },
    });
    await client.start();

    const correlation = await client.correlate('198.51.100.23');
    expect(correlation.isThreat).toBe(true);
    await eventually(
      () => emulator.splunk.events.some((event) => event.sourcetype === 'threatlib:alert'),
      'the alert at the SIEM',
    );
    const delivered = emulator.splunk.events.filter((event) => event.sourcetype === 'threatlib:alert');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.event).toMatchObject({
      kind: 'threatlib:alert',
      indicators: [expect.objectContaining({ value: '198.51.100.23' })],
    });
    await client.alerts.settled();
    const { items } = await client.alerts.list();
    expect(items[0]?.deliveries).toEqual([expect.objectContaining({ integration: 'siem', status: 'delivered' })]);
  });
});

describeWith(['rsyslog'], '8.1 enterprise.siemIntegration {enabled, endpoint, format}', () => {
  let feeds: EmulatedFeeds;
  let client: ThreatClient | undefined;

  beforeAll(async () => {
    feeds = await startEmulatedFeeds();
  });

  afterAll(async () => {
    await client?.stop();
    await feeds?.emulator.close();
  });

  it('sends every alert the client raises to the endpoint in the format chosen (CEF, to the e2e rsyslog)', async () => {
    // A domain no other run sends, so that rsyslog's file (which keeps every run's lines) is read for this run only.
    const domain = `${uniqueName('forwarded').replaceAll('.', '-')}.com`;
    feeds.emulator.script(domain, 'malicious');
    client = new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      // Plain HTTP to the feed emulator and plain syslog over TCP to rsyslog: both refused while HTTPS is enforced.
      security: { enforceHttps: false },
      logging: { enabled: false },
      enterprise: {
        siemIntegration: {
          enabled: true,
          endpoint: `syslog+tcp://127.0.0.1:${servicePort('rsyslog')}`,
          format: 'cef',
        },
      },
    });
    await client.start();

    expect((await client.correlate(domain)).isThreat).toBe(true);
    const lines = async () =>
      (await readFile(RSYSLOG_MESSAGES, 'utf8').catch(() => '')).split('\n').filter((line) => line.includes(domain));
    await eventually(async () => (await lines()).length > 0, 'rsyslog to write the CEF event');
    const [line] = await lines();
    // rsyslog writes the message back as RFC 5424; its MSG part is the CEF event, which the strict reader takes.
    const cef = parseCef(line?.slice(line.indexOf('CEF:')) ?? '');
    expect(cef).toMatchObject({
      deviceVendor: 'threatlib',
      deviceEventClassId: 'threat-alert',
      name: `Malicious domain: ${domain}`,
      extension: { dhost: domain, cs3Label: 'indicatorType', cs3: 'domain' },
    });
  });
});
