import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Alert } from '@threatlib/core';
import { createTestPki, type TestPki } from '@threatlib/test-utils';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cefEventForAlert } from '../formats/alert-cef.js';
import { leefEventForAlert } from '../formats/alert-leef.js';
import { parseCef } from '../formats/cef-parser.js';
import { EventFormatError } from '../formats/event-format-error.js';
import {
  cefEventAfter,
  hostileAlert,
  leefEventAfter,
  leefValueAfter,
  RAW_CONTROL,
} from '../formats/hostile-alerts.test-suite.js';
import { parseLeef } from '../formats/leef-parser.js';
import { SiemForwarder } from './siem-forwarder.js';
import { SiemForwarderError } from './siem-forwarder-error.js';
import { SyslogReceiver } from './syslog-receiver.test-suite.js';

const policy = { optionsPath: 'enterprise.siemIntegration', enforceHttps: true, validateCertificates: true };
const NOW = new Date('2026-03-01T12:00:00.000Z');
/** `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG` as formatRfc5424 writes it. */
const RFC5424 = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) - (.*)$/s;

let pki: TestPki;
const open: Array<{ close(): Promise<unknown> }> = [];
beforeAll(async () => {
  pki = await createTestPki();
});
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function receiver(tls: boolean): Promise<SyslogReceiver> {
  const server = await new SyslogReceiver(tls ? pki : undefined).listen();
  open.push(server);
  return server;
}

function forwarder(options: Record<string, unknown>, relaxed = false): SiemForwarder {
  const instance = new SiemForwarder(options, {
    ...policy,
    enforceHttps: !relaxed,
    hostname: 'tl-host',
    now: () => NOW,
  });
  open.push({ close: () => instance.stop() });
  return instance;
}

function sample(count: number, seed: number): Alert[] {
  return fc.sample(hostileAlert, { numRuns: count, seed });
}

/** The MSG of an RFC 5424 message, after checking its header is the forwarder's. */
function messageOf(syslog: string, alert: Alert): string {
  const match = RFC5424.exec(syslog);
  if (!match) throw new Error(`not RFC 5424: ${JSON.stringify(syslog.slice(0, 80))}`);
  const [, pri, timestamp, host, app, procId, msgId, msg] = match;
  const severity = { critical: 2, high: 3, medium: 4, low: 5, informational: 6 }[alert.severity];
  expect({ pri: Number(pri), timestamp, host, app, procId, msgId }).toEqual({
    pri: 16 * 8 + severity,
    timestamp: NOW.toISOString(),
    host: 'tl-host',
    app: 'threatlib',
    procId: String(process.pid),
    msgId: 'alert',
  });
  return msg as string;
}

describe('the forwarder over syslog+tls (RFC 5425) to a TLS receiver with a test authority', () => {
  it.each([
    ['cef', {}],
    ['leef', { leef: { version: '1.0' } }],
    ['leef', { leef: { version: '2.0', delimiter: '^' } }],
    ['json', {}],
  ] as const)(
    'delivers 300 hostile alerts as %s %j, each octet-counted, in order, parsing back exactly',
    async (format, extra) => {
      const server = await receiver(true);
      const sender = forwarder({
        endpoint: `syslog+tls://127.0.0.1:${server.port}`,
        format,
        tls: { ca: pki.ca },
        ...extra,
      });
      const alerts = sample(300, 14);
      const receipts = await Promise.all(alerts.map((alert) => sender.sendAlert(alert)));
      expect(receipts[0]).toMatchObject({ format, endpoint: `syslog+tls://127.0.0.1:${server.port}` });
      expect(receipts.every((receipt) => (receipt.bytes ?? 0) > 0)).toBe(true);

      const messages = await server.received(alerts.length);
      expect(server.errors).toEqual([]);
      expect(server.connections).toBe(1);
      expect(messages).toHaveLength(alerts.length);
      messages.forEach((syslog, i) => {
        const alert = alerts[i] as Alert;
        const msg = messageOf(syslog, alert);
        // One record: no raw control or separator character (the tabs that delimit LEEF 1.0 aside).
        expect(msg.replaceAll('\t', '')).not.toMatch(RAW_CONTROL);
        if (format === 'cef') expect(parseCef(msg)).toEqual(cefEventAfter(cefEventForAlert(alert)));
        if (format === 'leef') expect(parseLeef(msg)).toEqual(leefEventAfter(leefEventForAlert(alert, extra.leef)));
        if (format === 'json') {
          const { deliveries: _deliveries, ...record } = alert;
          expect(JSON.parse(msg)).toEqual(record);
        }
      });
      expect(sender.health()).toMatchObject({ healthy: true, sent: 300, failed: 0, connected: true });
    },
  );

  it('refuses a receiver whose certificate no trusted authority signed, without retrying', async () => {
    const server = await receiver(true);
    const sender = forwarder({ endpoint: `syslog+tls://127.0.0.1:${server.port}`, format: 'cef' });
    const [alert] = sample(1, 1) as [Alert];
    const error = await sender.sendAlert(alert).catch((e: unknown) => e);
    expect(SiemForwarderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: false, transport: 'syslog+tls' });
    expect((error as Error).message).toMatch(
      /^syslog\+tls:\/\/127\.0\.0\.1:\d+: TLS certificate refused \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); trust its authority with tls\.ca$/,
    );
    expect(server.messages).toEqual([]);
    expect(sender.health()).toMatchObject({ healthy: false, failed: 1 });
  });

  it('checks the certificate against the name it is reached by', async () => {
    const server = await receiver(true);
    const sender = forwarder({
      endpoint: `syslog+tls://127.0.0.1:${server.port}`,
      tls: { ca: pki.ca, servername: 'siem.example.com' },
    });
    const error = await sender.sendAlert(sample(1, 2)[0] as Alert).catch((e: unknown) => e);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('reconnects after the receiver drops the connection', async () => {
    const server = await receiver(true);
    const sender = forwarder({ endpoint: `syslog+tls://127.0.0.1:${server.port}`, tls: { ca: pki.ca } });
    const [first, second] = sample(2, 3) as [Alert, Alert];
    await sender.sendAlert(first);
    await server.received(1);
    server.dropConnections();
    await vi.waitFor(() => expect(sender.health().connected).toBe(false));
    await sender.sendAlert(second);
    await server.received(2);
    expect(server.connections).toBe(2);
    expect(JSON.parse(messageOf(server.messages[1] as string, second)).id).toBe(second.id);
  });

  it('says unreachable, retryably, when nothing listens', async () => {
    const server = await receiver(true);
    const port = server.port;
    await server.close();
    const sender = forwarder({ endpoint: `syslog+tls://127.0.0.1:${port}`, tls: { ca: pki.ca } });
    const error = await sender.sendAlert(sample(1, 4)[0] as Alert).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SiemForwarderError', code: 'SIEM_FORWARD_FAILED', isRetryable: true });
    expect((error as Error).message).toBe(`syslog+tls://127.0.0.1:${port} unreachable: ECONNREFUSED`);
  });

  it('gives up an attempt when its signal aborts, saying so', async () => {
    const server = await receiver(true);
    const sender = forwarder({ endpoint: `syslog+tls://127.0.0.1:${server.port}`, tls: { ca: pki.ca } });
    const error = await sender
      .sendAlert(sample(1, 5)[0] as Alert, { signal: AbortSignal.abort(new Error('timed out')) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ isRetryable: true });
    expect((error as Error).message).toContain('was cut short');
    expect(server.messages).toEqual([]);
  });
});

describe('the forwarder over syslog+tcp (RFC 6587)', () => {
  it('is refused while security.enforceHttps is on', () => {
    expect(() => new SiemForwarder({ endpoint: 'syslog+tcp://127.0.0.1:15514' }, policy)).toThrow(
      /is not encrypted; security\.enforceHttps refuses it/,
    );
  });

  it('delivers octet-counted frames when enforceHttps is off', async () => {
    const server = await receiver(false);
    const sender = forwarder({ endpoint: `syslog+tcp://127.0.0.1:${server.port}`, format: 'cef' }, true);
    const alerts = sample(100, 6);
    for (const alert of alerts) await sender.sendAlert(alert);
    const messages = await server.received(100);
    expect(server.errors).toEqual([]);
    messages.forEach((syslog, i) => {
      const alert = alerts[i] as Alert;
      expect(parseCef(messageOf(syslog, alert))).toEqual(cefEventAfter(cefEventForAlert(alert)));
    });
  });

  it('refuses a stored alert whose indicator is not one indicator, sending nothing for it and not retrying', async () => {
    const server = await receiver(false);
    const sender = forwarder({ endpoint: `syslog+tcp://127.0.0.1:${server.port}`, format: 'cef' }, true);
    const [good] = sample(1, 9) as [Alert];
    // As a shared database may hand it back: never accepted by threatlib, one value that is two lines.
    const poisoned: Alert = { ...good, indicators: [{ type: 'ipv4', value: '198.51.100.7\n0.0.0.0/0' }] };
    const error = await sender.sendAlert(poisoned).catch((e: unknown) => e);
    expect(EventFormatError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: false });
    expect((error as Error).message).toContain('indicators[0].value: Invalid indicator "198.51.100.7\\n0.0.0.0/0"');
    await sender.sendAlert(good);
    const messages = await server.received(1);
    expect(messages).toHaveLength(1);
    expect(sender.health()).toMatchObject({ healthy: true, sent: 1, failed: 1 });
  });

  it('closes its connection on stop(), after what was written', async () => {
    const server = await receiver(false);
    const sender = forwarder({ endpoint: `syslog+tcp://127.0.0.1:${server.port}` }, true);
    const alerts = sample(20, 7);
    await Promise.all(alerts.map((alert) => sender.sendAlert(alert)));
    await sender.stop();
    expect(sender.health().connected).toBe(false);
    expect(await server.received(20)).toHaveLength(20);
  });
});

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('the forwarder over HTTPS', () => {
  let server: Server;
  let url: string;
  const requests: Received[] = [];
  let answer: { status: number; body: string } = { status: 202, body: '' };

  beforeAll(async () => {
    server = createHttpsServer({ key: pki.key, cert: pki.cert }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        requests.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => {
    requests.length = 0;
    answer = { status: 202, body: '' };
  });

  it('POSTs each alert as JSON, CEF or LEEF with its headers', async () => {
    const headers = { authorization: 'Bearer s3cret-token-0123456789' };
    const alerts = sample(30, 8);
    for (const format of ['json', 'cef', 'leef'] as const) {
      const sender = forwarder({ endpoint: `${url}?source=threatlib`, format, headers, tls: { ca: pki.ca } });
      for (const alert of alerts) {
        expect(await sender.sendAlert(alert)).toEqual({
          format,
          endpoint: url.replace('/ingest', '/ingest'),
          status: 202,
        });
      }
    }
    expect(requests).toHaveLength(90);
    requests.forEach((request, i) => {
      const alert = alerts[i % 30] as Alert;
      expect(request).toMatchObject({ method: 'POST', url: '/ingest?source=threatlib' });
      expect(request.headers.authorization).toBe(headers.authorization);
      if (i < 30) {
        expect(request.headers['content-type']).toBe('application/json');
        const { deliveries: _deliveries, ...record } = alert;
        expect(JSON.parse(request.body)).toEqual(record);
      } else if (i < 60) {
        expect(request.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(parseCef(request.body)).toEqual(cefEventAfter(cefEventForAlert(alert)));
      } else {
        expect(parseLeef(request.body).attributes.title).toBe(leefValueAfter(alert.title));
      }
    });
  });

  it('reports a refusal with the status and the endpoint’s reason, never the token, and does not retry a 4xx', async () => {
    const token = 's3cret-token-0123456789';
    answer = { status: 401, body: `invalid token Bearer ${token} for\nthis endpoint` };
    const sender = forwarder({ endpoint: url, headers: { authorization: `Bearer ${token}` }, tls: { ca: pki.ca } });
    const error = await sender.sendAlert(sample(1, 9)[0] as Alert).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SiemForwarderError', statusCode: 401, isRetryable: false });
    expect((error as Error).message).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/ingest answered HTTP 401: invalid token/);
    expect((error as Error).message).not.toContain(token);
    expect(sender.health()).toMatchObject({ healthy: false, detail: (error as Error).message });
  });

  it('marks a 503 retryable', async () => {
    answer = { status: 503, body: 'busy' };
    const sender = forwarder({ endpoint: url, tls: { ca: pki.ca } });
    await expect(sender.sendAlert(sample(1, 10)[0] as Alert)).rejects.toMatchObject({
      statusCode: 503,
      isRetryable: true,
      message: expect.stringMatching(/answered HTTP 503: busy$/),
    });
  });

  it('refuses a certificate its authority is not trusted for', async () => {
    const sender = forwarder({ endpoint: url });
    await expect(sender.sendAlert(sample(1, 11)[0] as Alert)).rejects.toMatchObject({
      isRetryable: false,
      message: expect.stringContaining('TLS certificate refused'),
    });
    expect(requests).toEqual([]);
  });
});
