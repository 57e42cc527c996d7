import type { Alert } from '@threatlib/core';
import { describeWithRsyslog, E2E_RSYSLOG, rsyslogLines } from '@threatlib/test-utils/rsyslog';
import fc from 'fast-check';
import { afterEach, expect, it } from 'vitest';
import { cefEventForAlert } from '../formats/alert-cef.js';
import { parseCef } from '../formats/cef-parser.js';
import { cefEventAfter, cefValueAfter, hostileAlert, RAW_CONTROL } from '../formats/hostile-alerts.test-suite.js';
import { SiemForwarder } from './siem-forwarder.js';

/** `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG`, as rsyslog writes it back. */
const RFC5424 = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[.*?\]) (.*)$/s;
const endpoint = `syslog+tcp://${E2E_RSYSLOG.host}:${E2E_RSYSLOG.port}`;
const policy = { optionsPath: 'enterprise.siemIntegration', enforceHttps: false, validateCertificates: true };

let forwarder: SiemForwarder | undefined;
afterEach(async () => {
  await forwarder?.stop();
});

describeWithRsyslog('the forwarder against the real rsyslog of the e2e services', () => {
  // Every control and separator character included: CEF never writes one raw (line breaks become \n, the rest a
  // space or U+FFFD), so rsyslog has nothing to rewrite (it would write a raw tab as #011) and each alert is one line.
  it('delivers 200 hostile alerts as CEF over syslog+tcp, octet-counted, each one line read back exactly', async () => {
    const marker = `siemfwd-${process.pid}-${Date.now()}`;
    const alerts = fc.sample(hostileAlert, { numRuns: 200, seed: 42 }).map((alert, i) => ({
      ...alert,
      id: `${marker}-${i}-${alert.id}`,
    }));
    forwarder = new SiemForwarder({ endpoint, format: 'cef' }, policy);
    await Promise.all(alerts.map((alert) => forwarder?.sendAlert(alert)));

    const lines = await rsyslogLines(marker, alerts.length);
    expect(lines).toHaveLength(alerts.length);
    const received = new Map<string, ReturnType<typeof parseCef>>();
    for (const line of lines) {
      const match = RFC5424.exec(line);
      if (!match) throw new Error(`rsyslog did not write RFC 5424: ${line.slice(0, 120)}`);
      const [, pri, , , appName, procId, msgId, , msg] = match;
      expect({ appName, procId, msgId }).toEqual({ appName: 'threatlib', procId: String(process.pid), msgId: 'alert' });
      expect(Math.floor(Number(pri) / 8)).toBe(16);
      expect(line).not.toMatch(RAW_CONTROL);
      const event = parseCef(msg as string);
      received.set(event.extension.externalId as string, event);
    }
    for (const alert of alerts) {
      expect(received.get(cefValueAfter(alert.id))).toEqual(cefEventAfter(cefEventForAlert(alert)));
    }
  });

  it('delivers JSON of fully hostile alerts (every control and separator character escaped), one line each', async () => {
    const marker = `siemfwd-json-${process.pid}-${Date.now()}`;
    const alerts: Alert[] = fc
      .sample(hostileAlert, { numRuns: 50, seed: 7 })
      .map((alert, i) => ({ ...alert, id: `${marker}-${i}` }));
    forwarder = new SiemForwarder({ endpoint, format: 'json' }, policy);
    for (const alert of alerts) await forwarder.sendAlert(alert);
    const lines = await rsyslogLines(marker, alerts.length);
    expect(lines).toHaveLength(alerts.length);
    for (const line of lines) expect(line).not.toMatch(RAW_CONTROL);
    const records = lines.map((line) => JSON.parse(RFC5424.exec(line)?.[8] ?? 'null') as { id: string });
    for (const alert of alerts) {
      const { deliveries: _deliveries, ...record } = alert;
      expect(records.find((r) => r.id === alert.id)).toEqual(record);
    }
  });
});
