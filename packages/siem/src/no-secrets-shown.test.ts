// Issue 21, finding 9: no object of @threatlib/siem shows a credential. A SIEMConnector of every platform (made, and
// on the emulator after it signed in, read a HEC token and sent), the integration a client builds from
// integrations.siem, the forwarder of enterprise.siemIntegration (its header values) and the errors they reject with
// show no password, token or secret through JSON.stringify, util.inspect (depth Infinity), String() or a walk of
// enumerable properties.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AlertInput, silentLogger, ThreatClient } from '@threatlib/core';
import { normaliseAlert } from '@threatlib/core/integration';
import { expectNoSecretShown } from '@threatlib/core/testing';
import {
  QRADAR_DEFAULTS,
  type RunningSiemEmulator,
  SENTINEL_DEFAULTS,
  SPLUNK_DEFAULTS,
  startSiemEmulator,
  TEST_CA,
} from '@threatlib/siem-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiemConnectorOptions } from './connector/connector-options.js';
import { SIEMConnector } from './connector/siem-connector.js';
import { SiemForwarder } from './forwarder/siem-forwarder.js';
import { PLATFORM_IDS } from './platforms/platform-id.js';

const PASSWORD = 'siem-pw-5Hq9zLc2Vx7N';
const TOKEN = 'siem-token-8Jt3wKd6Bm1R';
const HEC_TOKEN = 'hec-token-2Yg7pFs4Qn9L';
const HEADER = 'forwarder-header-6Cx1vRb8Tz3M';
const SECRETS = [PASSWORD, TOKEN, HEC_TOKEN, HEADER];
const EMULATOR_SECRETS = [
  SPLUNK_DEFAULTS.password,
  SPLUNK_DEFAULTS.hecToken,
  QRADAR_DEFAULTS.token,
  SENTINEL_DEFAULTS.clientSecret,
];

const ALERT: AlertInput = {
  title: 'Malicious domain contacted',
  severity: 'high',
  description: 'Outbound connection to a known phishing domain',
  indicators: [{ type: 'domain', value: 'evil-domain.com', confidence: 90 }],
  timestamp: new Date().toISOString(),
};

/** What each platform needs besides host and credentials to be made. */
const PLATFORM_OPTIONS: Record<string, Record<string, unknown>> = {
  siem_a: { hec: { token: HEC_TOKEN } },
  siem_b: {},
  siem_c: {},
  siem_d: {
    tenantId: SENTINEL_DEFAULTS.tenantId,
    dataCollectionRuleId: SENTINEL_DEFAULTS.dataCollectionRuleId,
    workspaceId: SENTINEL_DEFAULTS.workspaceId,
  },
  siem_e: { project: 'intel', location: 'us', instance: '00000000-0000-4000-8000-000000000001' },
};

describe('a connector of each platform, made with each form of credentials', () => {
  for (const platform of PLATFORM_IDS) {
    it(platform, () => {
      let made = 0;
      for (const credentials of [{ username: 'threatlib', password: PASSWORD }, { token: TOKEN }]) {
        let connector: SIEMConnector;
        try {
          connector = new SIEMConnector({
            platform,
            host: 'siem.example',
            credentials,
            ...PLATFORM_OPTIONS[platform],
          } as SiemConnectorOptions);
        } catch (error) {
          // A platform that takes only one form refuses the other, without quoting it.
          expectNoSecretShown(`${platform} refusal`, error, SECRETS);
          continue;
        }
        made += 1;
        expectNoSecretShown(platform, connector, SECRETS);
        expect(JSON.parse(JSON.stringify(connector))).toMatchObject({ platform, credentials: '[redacted]' });
      }
      expect(made).toBeGreaterThan(0);
    });
  }
});

describe('on the emulated SIEMs, signed in and sending', () => {
  let emulator: RunningSiemEmulator;
  beforeAll(async () => {
    emulator = await startSiemEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  const connectors = (): Array<[string, SiemConnectorOptions]> => [
    [
      'siem_a (reads the HEC token with the password)',
      {
        platform: 'siem_a',
        host: emulator.host,
        port: emulator.port,
        credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
        hec: { port: emulator.port },
        tls: { ca: TEST_CA },
      },
    ],
    [
      'siem_b',
      {
        platform: 'siem_b',
        host: emulator.host,
        port: emulator.port,
        credentials: { token: QRADAR_DEFAULTS.token },
        syslog: { port: emulator.qradar.syslogTlsPort },
        tls: { ca: TEST_CA },
      },
    ],
    [
      'siem_d (signs in for a token with the client secret)',
      {
        platform: 'siem_d',
        host: emulator.host,
        credentials: { username: SENTINEL_DEFAULTS.clientId, password: SENTINEL_DEFAULTS.clientSecret },
        tenantId: SENTINEL_DEFAULTS.tenantId,
        dataCollectionRuleId: SENTINEL_DEFAULTS.dataCollectionRuleId,
        workspaceId: SENTINEL_DEFAULTS.workspaceId,
        port: emulator.port,
        authorityHost: `https://${emulator.host}:${emulator.port}`,
        logAnalyticsEndpoint: `https://${emulator.host}:${emulator.port}`,
        tls: { ca: TEST_CA },
      },
    ],
  ];

  it('each connector after testConnection() and sendAlert(), and after stop()', async () => {
    for (const [name, options] of connectors()) {
      const connector = new SIEMConnector(options);
      try {
        await connector.testConnection();
        await connector.sendAlert(ALERT);
        expectNoSecretShown(name, connector, EMULATOR_SECRETS);
      } finally {
        await connector.stop();
      }
      expectNoSecretShown(`${name} stopped`, connector, EMULATOR_SECRETS);
    }
  });

  it('the error of wrong credentials', async () => {
    const [, splunk] = connectors()[0] as [string, SiemConnectorOptions];
    const connector = new SIEMConnector({
      ...splunk,
      credentials: { username: 'admin', password: PASSWORD },
      retries: 0,
    });
    const error = await connector.testConnection().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expectNoSecretShown('authentication error', error, [...SECRETS, ...EMULATOR_SECRETS]);
    await connector.stop();
  });

  it('the integration a client builds from integrations.siem, started', async () => {
    const [, splunk] = connectors()[0] as [string, SiemConnectorOptions];
    const client = new ThreatClient(
      { sources: ['feed_urls'], integrations: { siem: splunk } },
      {
        env: false,
        logger: silentLogger,
        loadIntegrationPackage: (name) => (name === '@threatlib/siem' ? import('./index.js') : import(name)),
      },
    );
    await client.start();
    try {
      await client.alerts.add(ALERT);
      expectNoSecretShown('siem integration', client.integration('siem'), EMULATOR_SECRETS);
      expectNoSecretShown('started client', client, EMULATOR_SECRETS);
    } finally {
      await client.stop();
    }
  });
});

describe('the forwarder shows no header value', () => {
  let receiver: Server;
  let endpoint: string;
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(500).end(`rejected ${String(request.headers.authorization)}`));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events?token=${TOKEN}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('made, after a delivery the endpoint refused (echoing the header), and that error', async () => {
    const forwarder = new SiemForwarder(
      { enabled: true, endpoint, format: 'json', headers: { Authorization: `Bearer ${HEADER}` } },
      { optionsPath: 'enterprise.siemIntegration', enforceHttps: false, validateCertificates: true },
    );
    expectNoSecretShown('forwarder', forwarder, SECRETS);
    expect(forwarder.options.headers).toEqual({ Authorization: '[redacted]' });
    const error = await forwarder.sendAlert(normaliseAlert(ALERT, new Date())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expectNoSecretShown('forwarder error', error, SECRETS);
    expectNoSecretShown('forwarder after a failure', forwarder, SECRETS);
    await forwarder.stop();
  });
});
