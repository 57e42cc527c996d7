/*
 * Our CEF read by a CEF parser we did not write: nsyslog-parser from npm (0.10.x, MIT, solzimer/nsyslog-parser), the
 * one maintained npm package that parses CEF (as a syslog message's content) that we found; the npm names
 * `cef-parser` and `common-event-format` do not exist, and `cef` only writes CEF. It reads our lines as CEF and
 * splits header and extension where we do, but it does not implement the standard's escapes: it keeps `\|`, `\\`
 * and `\n` as written and cuts a value at an escaped `=` (the table at the end shows each case). So it agrees with
 * us exactly wherever no escape is needed, and the strict parser is what proves the escaped cases.
 */

import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { formatRfc5424 } from '@threatlib/core/logging';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cefEventForAlert } from './alert-cef.js';
import { formatCef } from './cef.js';
import { parseCef } from './cef-parser.js';
import { alertsOf, hostileAlert, plain } from './hostile-alerts.test-suite.js';

interface NsyslogEntry {
  type: string;
  appName?: string;
  cef?: {
    version: string;
    deviceVendor: string;
    deviceProduct: string;
    deviceVersion: string;
    deviceEventClassID: string;
    name: string;
    severity: string;
    /** The extension as written. */
    extension: string;
  };
  fields?: Record<string, string>;
}

const require = createRequire(import.meta.url);
const nsyslog = require('nsyslog-parser') as (line: string) => NsyslogEntry;
const nsyslogCef = require('nsyslog-parser/cef.js') as {
  parse(text: string): { headers: NonNullable<NsyslogEntry['cef']>; fields: Record<string, string> };
};

/** The RFC 5424 message the forwarder sends a CEF line in (without the octet count that frames it on TCP). */
function syslogMessage(line: string): string {
  return formatRfc5424({
    facility: 16,
    severity: 3,
    timestamp: new Date('2026-01-01T00:00:00Z'),
    hostname: hostname(),
    appName: 'threatlib',
    procId: process.pid,
    msgId: 'alert',
    message: line,
  });
}

describe('nsyslog-parser, an independent CEF parser from npm', () => {
  it('reads 1,000 alerts whose text needs no escape exactly as the strict parser does, from the syslog message', () => {
    fc.assert(
      fc.property(alertsOf(plain), (alert) => {
        const line = formatCef(cefEventForAlert(alert));
        const ours = parseCef(line);
        const theirs = nsyslog(syslogMessage(line));
        expect(theirs.type).toBe('CEF');
        expect(theirs.appName).toBe('threatlib');
        expect(theirs.cef).toMatchObject({
          version: `CEF:${ours.version}`,
          deviceVendor: ours.deviceVendor,
          deviceProduct: ours.deviceProduct,
          deviceVersion: ours.deviceVersion,
          deviceEventClassID: ours.deviceEventClassId,
          name: ours.name,
          severity: ours.severity,
        });
        expect(theirs.fields).toEqual(ours.extension);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads 1,000 hostile alerts as CEF with the same header fields that hold no escape', () => {
    fc.assert(
      fc.property(hostileAlert, (alert) => {
        const line = formatCef(cefEventForAlert(alert));
        const ours = parseCef(line);
        const theirs = nsyslogCef.parse(line);
        expect(theirs.headers).toMatchObject({
          version: 'CEF:0',
          deviceVendor: ours.deviceVendor,
          deviceProduct: ours.deviceProduct,
          deviceVersion: ours.deviceVersion,
          deviceEventClassID: ours.deviceEventClassId,
          severity: ours.severity,
        });
        expect(theirs.fields.rt).toBe(ours.extension.rt);
      }),
      { numRuns: 1000 },
    );
  });

  // The Implementation Standard's own examples ("Character Encoding") and two of ours, with what the standard
  // says they mean (our strict parser) and what nsyslog-parser 0.10.1 makes of them.
  it.each<{ line: string; spec: Record<string, string>; nsyslog: Record<string, string> }>([
    {
      line: 'CEF:0|security|threatmanager|1.0|100|detected a \\| in message|10|src=10.0.0.1 act=blocked a | dst=1.1.1.1',
      spec: { name: 'detected a | in message' },
      nsyslog: { name: 'detected a \\| in message' },
    },
    {
      line: 'CEF:0|security|threatmanager|1.0|100|detected a \\\\ in packet|10|src=10.0.0.1 act=blocked a \\\\ dst=1.1.1.1',
      spec: { name: 'detected a \\ in packet', act: 'blocked a \\' },
      nsyslog: { name: 'detected a \\\\ in packet', act: 'blocked a \\\\' },
    },
    {
      line: 'CEF:0|security|threatmanager|1.0|100|detected a = in message|10|src=10.0.0.1 act=blocked a \\= dst=1.1.1.1',
      spec: { act: 'blocked a =' },
      nsyslog: { act: 'blocked a', '\\': '' },
    },
    {
      line: 'CEF:0|security|threatmanager|1.0|100|Detected a threat. No action needed.|10|src=10.0.0.1 msg=Detected a threat.\\n No action needed.',
      spec: { msg: 'Detected a threat.\n No action needed.' },
      nsyslog: { msg: 'Detected a threat.\\n No action needed.' },
    },
    {
      line: 'CEF:0|threatlib|threatlib|0.0.0|threat-alert|t|8|request=https://evil.example/?a\\=1&b\\=2 cs3=url',
      spec: { request: 'https://evil.example/?a=1&b=2' },
      nsyslog: { request: 'https://evil.example/?a\\' },
    },
    {
      line: 'CEF:0|threatlib|threatlib|0.0.0|threat-alert|t|8|msg=see a\\=b cat=high',
      spec: { msg: 'see a=b', cat: 'high' },
      nsyslog: { msg: 'see', 'a\\': 'b', cat: 'high' },
    },
  ])('gets escapes wrong: $line', ({ line, spec, nsyslog: wrong }) => {
    const ours = parseCef(line);
    const theirs = nsyslogCef.parse(line);
    const { name: specName, ...specFields } = spec;
    const { name: wrongName, ...wrongFields } = wrong;
    if (specName !== undefined) {
      expect(ours.name).toBe(specName);
      expect(theirs.headers.name).toBe(wrongName);
    }
    expect(ours.extension).toMatchObject(specFields);
    expect(theirs.fields).toMatchObject(wrongFields);
  });
});
