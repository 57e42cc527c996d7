// enterprise.siemIntegration takes effect: a client configured with it sends every alert it raises or is given to
// the endpoint, in the format asked for, with no other code. Each option of it is shown changing what arrives (core's
// every-option.test.ts points here for them).

import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Alert,
  type AlertInput,
  IntegrationError,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { createTestPki, type TestPki } from '@threatlib/test-utils';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cefEventForAlert } from '../formats/alert-cef.js';
import { parseCef } from '../formats/cef-parser.js';
import { cefEventAfter } from '../formats/hostile-alerts.test-suite.js';
import { parseLeef } from '../formats/leef-parser.js';
import { SyslogReceiver } from './syslog-receiver.test-suite.js';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-forwarder-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
/** Asks no feed: a local blocklist is the only source. */
const offline: ThreatConfig = { sources: [], strategy: 'aggressive', lists: [{ name: 'blocklist', file: listFile }] };

/** What an application with @threatlib/siem installed gives the client: here the package is this source. */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/siem' ? import('../index.js') : import(name)),
};

const hostileInput: AlertInput = {
  title: 'Phishing | kit = "login"\nsecond line',
  severity: 'critical',
  description: 'C:\\kits\\a=b ^ tab\there | ünïcode 💥',
  indicators: [{ type: 'domain', value: 'evil.threatlib-test.net', confidence: 95, source: 'mail|gateway' }],
};

/** The MSG of an RFC 5424 message. */
const msgOf = (syslog: string) => /^<\d+>1 \S+ \S+ \S+ \S+ \S+ - (.*)$/s.exec(syslog)?.[1] as string;

let pki: TestPki;
const cleanup: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  pki = await createTestPki();
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tlsReceiver(): Promise<SyslogReceiver> {
  const receiver = await new SyslogReceiver(pki).listen();
  cleanup.push(() => receiver.close());
  return receiver;
}

async function started(config: Partial<ThreatConfig>): Promise<ThreatClient> {
  const client = new ThreatClient({ ...offline, ...config } as ThreatConfig, application);
  cleanup.push(() => client.stop());
  await client.start();
  return client;
}

/** Adds `input` and waits until its deliveries are settled; the stored alert as delivered. */
async function raise(client: ThreatClient, input: AlertInput = hostileInput): Promise<Alert> {
  const { id } = await client.alerts.add(input);
  await client.alerts.settled();
  return (await client.alerts.get(id)) as Alert;
}

describe('enterprise.siemIntegration', () => {
  it('sends every alert, given or concluded, to a syslog+tls endpoint as CEF, with no other code', async () => {
    const receiver = await tlsReceiver();
    const client = await started({
      enterprise: {
        siemIntegration: {
          enabled: true,
          endpoint: `syslog+tls://127.0.0.1:${receiver.port}`,
          format: 'cef',
          tls: { ca: pki.ca },
        },
      },
    });
    expect(client.integration('siemForwarder')).toBeDefined();

    const given = await raise(client);
    expect(given.deliveries).toMatchObject([{ integration: 'siemForwarder', status: 'delivered', attempts: 1 }]);
    await client.correlate('evil.threatlib-test.net');
    await client.alerts.settled();

    const messages = await receiver.received(2);
    expect(parseCef(msgOf(messages[0] as string))).toEqual(cefEventAfter(cefEventForAlert(given)));
    const concluded = parseCef(msgOf(messages[1] as string));
    expect(concluded.extension.dhost).toBe('evil.threatlib-test.net');
    expect(concluded.name).not.toBe(given.title);
  });

  it('sends nothing and opens nothing while enabled is false', async () => {
    const receiver = await tlsReceiver();
    const client = await started({
      enterprise: {
        siemIntegration: { enabled: false, endpoint: `syslog+tls://127.0.0.1:${receiver.port}`, format: 'cef' },
      },
    });
    expect(client.integration('siemForwarder')).toBeUndefined();
    expect((await raise(client)).deliveries).toEqual([]);
    expect(receiver.connections).toBe(0);
  });

  it("writes LEEF when format is 'leef': 2.0 with its delimiter, or 1.0", async () => {
    const receiver = await tlsReceiver();
    const endpoint = `syslog+tls://127.0.0.1:${receiver.port}`;
    const leef2 = await started({
      enterprise: {
        siemIntegration: { enabled: true, endpoint, format: 'leef', leef: { delimiter: '~' }, tls: { ca: pki.ca } },
      },
    });
    const first = await raise(leef2, { ...hostileInput, description: 'no tilde here' });
    const leef1 = await started({
      enterprise: {
        siemIntegration: { enabled: true, endpoint, format: 'leef', leef: { version: '1.0' }, tls: { ca: pki.ca } },
      },
    });
    const second = await raise(leef1);
    const [a, b] = (await receiver.received(2)).map((m) => parseLeef(msgOf(m)));
    expect(a).toMatchObject({ version: '2.0', delimiter: '~', attributes: { alertId: first.id, title: first.title } });
    expect(b).toMatchObject({
      version: '1.0',
      delimiter: '\t',
      attributes: { alertId: second.id, title: second.title },
    });
  });

  it('checks the endpoint’s certificate: refused without its authority, accepted with rejectUnauthorized: false', async () => {
    const receiver = await tlsReceiver();
    const endpoint = `syslog+tls://127.0.0.1:${receiver.port}`;
    const strict = await started({ enterprise: { siemIntegration: { enabled: true, endpoint, format: 'json' } } });
    const refused = await raise(strict);
    expect(refused.deliveries).toMatchObject([{ integration: 'siemForwarder', status: 'failed', attempts: 1 }]);
    expect(refused.deliveries[0]?.lastError).toContain('TLS certificate refused');

    const lab = await started({
      enterprise: { siemIntegration: { enabled: true, endpoint, format: 'json', tls: { rejectUnauthorized: false } } },
    });
    const accepted = await raise(lab);
    expect(accepted.deliveries).toMatchObject([{ status: 'delivered' }]);
    expect(JSON.parse(msgOf((await receiver.received(1))[0] as string)).id).toBe(accepted.id);
  });

  it('checks the certificate against servername when one is given', async () => {
    const receiver = await tlsReceiver();
    const endpoint = `syslog+tls://127.0.0.1:${receiver.port}`;
    const named = await started({
      enterprise: { siemIntegration: { enabled: true, endpoint, tls: { ca: pki.ca, servername: 'localhost' } } },
    });
    expect((await raise(named)).deliveries).toMatchObject([{ status: 'delivered' }]);
    const misnamed = await started({
      enterprise: { siemIntegration: { enabled: true, endpoint, tls: { ca: pki.ca, servername: 'siem.example' } } },
    });
    expect((await raise(misnamed)).deliveries[0]?.lastError).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('POSTs to an HTTPS endpoint with the headers given', async () => {
    const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const server = createHttpsServer({ key: pki.key, cert: pki.cert }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/collector`;
    const client = await started({
      enterprise: {
        siemIntegration: {
          enabled: true,
          endpoint,
          format: 'cef',
          headers: { authorization: 'Splunk not-a-real-token-1234' },
          tls: { ca: pki.ca },
        },
      },
    });
    const alert = await raise(client);
    expect(alert.deliveries).toMatchObject([{ status: 'delivered', result: { format: 'cef', status: 200 } }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe('Splunk not-a-real-token-1234');
    expect(parseCef(seen[0]?.body as string)).toEqual(cefEventAfter(cefEventForAlert(alert)));
  });

  it('refuses plain syslog+tcp at start() while security.enforceHttps is on, and takes it when it is off', async () => {
    const receiver = await new SyslogReceiver().listen();
    cleanup.push(() => receiver.close());
    const endpoint = `syslog+tcp://127.0.0.1:${receiver.port}`;
    const refused = new ThreatClient(
      { ...offline, enterprise: { siemIntegration: { enabled: true, endpoint } } } as ThreatConfig,
      application,
    );
    const error = await refused.start().catch((e: unknown) => e);
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      `enterprise.siemIntegration.endpoint syslog+tcp://127.0.0.1:${receiver.port} is not encrypted; security.enforceHttps refuses it`,
    );
    expect(refused.state).toBe('idle');

    const client = await started({
      security: { enforceHttps: false },
      enterprise: { siemIntegration: { enabled: true, endpoint, format: 'cef' } },
    });
    const alert = await raise(client);
    expect(parseCef(msgOf((await receiver.received(1))[0] as string)).extension.externalId).toBe(alert.id);
  });

  it('refuses options @threatlib/siem cannot use at start(), naming them under enterprise.siemIntegration', async () => {
    const client = new ThreatClient(
      {
        ...offline,
        enterprise: { siemIntegration: { enabled: true, endpoint: 'ftp://siem.example', leef: { delimiter: '|' } } },
      } as ThreatConfig,
      application,
    );
    await expect(client.start()).rejects.toThrow(
      /^Configuration invalid: enterprise\.siemIntegration\.leef\.delimiter: cannot be "\|"/,
    );
  });
});
