import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithRsyslog, E2E_RSYSLOG, rsyslogLines } from '@threatlib/test-utils/rsyslog';
import { describe, expect, it } from 'vitest';
import { ThreatClient } from '../../client/threat-client.js';
import { parseConfig } from '../../config/parse-config.js';
import { withCategory } from '../categories.js';
import { closeLogger, createLogger, logTransportStats } from '../create-logger.js';

/** `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG`, as rsyslog writes it back. */
const RFC5424 = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[.*?\]) (.*)$/;

describe('syslog transport against a real rsyslog', () => {
  describeWithRsyslog('rsyslog receives RFC 5424 messages', () => {
    it.each(['udp', 'tcp'] as const)('over %s', async (protocol) => {
      const marker = `e2e-${protocol}-${process.pid}-${Date.now()}`;
      const logging = parseConfig({
        sources: ['feed_urls'],
        logging: {
          level: 'debug',
          stderr: false,
          transports: { syslog: { ...E2E_RSYSLOG, protocol, facility: 'local3', appName: 'threatlib-e2e' } },
        },
      }).logging;
      const logger = createLogger(logging);
      const feeds = withCategory(logger, 'feed');
      feeds.warn({ feed: 'feed_otx', marker, seq: 1 }, `feed_otx slow (${marker})`);
      feeds.error({ feed: 'feed_otx', marker, seq: 2, err: new Error('boom') }, 'feed_otx failed');
      logger.info({ marker, seq: 3, text: 'é ünïcode' }, 'from the root logger');
      await closeLogger(logger);
      expect(logTransportStats(logger).syslog).toMatchObject({ sent: 3, dropped: 0 });

      const lines = await rsyslogLines(marker, 3);
      const parsed = lines.map((line) => {
        const match = RFC5424.exec(line);
        if (!match) throw new Error(`not RFC 5424: ${line}`);
        const [, pri, timestamp, , appName, procId, msgId, sd, msg] = match;
        return { pri: Number(pri), timestamp, appName, procId, msgId, sd, msg: JSON.parse(msg ?? '') };
      });
      parsed.sort((a, b) => a.msg.seq - b.msg.seq);
      // local3 = 19: warn (4) → 156, error (3) → 155, info (6) → 158.
      expect(parsed.map((p) => p.pri)).toEqual([156, 155, 158]);
      expect(parsed.map((p) => p.msgId)).toEqual(['feed', 'feed', 'client']);
      for (const p of parsed) {
        expect(p.appName).toBe('threatlib-e2e');
        expect(p.procId).toBe(String(process.pid));
        expect(p.sd).toBe('-');
        expect(Date.parse(p.timestamp ?? '')).toBeGreaterThan(Date.now() - 60_000);
      }
      expect(parsed[0]?.msg).toMatchObject({
        category: 'feed',
        feed: 'feed_otx',
        level: 40,
        msg: `feed_otx slow (${marker})`,
      });
      expect(parsed[1]?.msg).toMatchObject({ err: { message: 'boom' } });
      expect(parsed[2]?.msg).toMatchObject({ text: 'é ünïcode' });
    });
  });
});

describe('syslog transport: control and separator characters against a real rsyslog', () => {
  describeWithRsyslog("one line in rsyslog's file per record", () => {
    it.each(['json', 'text'] as const)('as %s, whatever the line holds', async (format) => {
      const marker = `e2e-breakers-${format}-${process.pid}-${Date.now()}`;
      // NUL, VT, FF, CR, LF, NEL, U+2028, U+2029, DEL, a C1 control: what a reader may end a record at.
      const breakers = ['\u0000', '\u000b', '\u000c', '\r', '\n', '\u0085', '\u2028', '\u2029', '\u007f', '\u009b'];
      const logging = parseConfig({
        sources: ['feed_urls'],
        logging: {
          format,
          stderr: false,
          transports: { syslog: { ...E2E_RSYSLOG, protocol: 'tcp', facility: 'local5', appName: 'threatlib-e2e' } },
        },
      }).logging;
      const logger = createLogger(logging);
      for (const [seq, c] of breakers.entries())
        logger.warn({ marker, seq, note: `v${c}w` }, `first${c}second ${marker}`);
      await closeLogger(logger);
      const lines = await rsyslogLines(marker, breakers.length);
      expect(lines).toHaveLength(breakers.length);
      for (const line of lines) {
        expect(line).toMatch(RFC5424);
        expect(line).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
      }
    });
  });
});

describe('the documented logging.transports array against a real rsyslog', () => {
  describeWithRsyslog('a client with two file transports and a syslog transport', () => {
    it('writes each file by its own level and sends to rsyslog', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'threatlib-transports-'));
      const marker = `e2e-array-${process.pid}-${Date.now()}`;
      const all = join(dir, 'all.log');
      const warnings = join(dir, 'warnings.log');
      try {
        const client = new ThreatClient(
          {
            sources: ['feed_urls'],
            logging: {
              level: 'debug',
              stderr: false,
              transports: [
                { type: 'file', filename: all, maxSize: '1MB', maxFiles: 2, compress: false },
                { type: 'file', filename: warnings, level: 'warn' },
                { type: 'syslog', ...E2E_RSYSLOG, facility: 'local4', protocol: 'tcp', appName: 'threatlib-array' },
              ],
            },
          },
          { env: false },
        );
        client.logger.info({ marker, seq: 1 }, 'an info line');
        client.logger.warn({ marker, seq: 2 }, 'a warning');
        await client.stop();

        const lines = async (file: string) =>
          (await readFile(file, 'utf8'))
            .split('\n')
            .filter((line) => line.includes(marker))
            .map((line) => (JSON.parse(line) as { seq: number }).seq);
        expect(await lines(all)).toEqual([1, 2]);
        expect(await lines(warnings)).toEqual([2]);
        const stats = logTransportStats(client.logger);
        expect(Object.keys(stats).sort()).toEqual(['file', 'file#2', 'syslog']);
        expect(stats.syslog).toMatchObject({ dropped: 0 });

        const received = await rsyslogLines(marker, 2);
        const parsed = received.map((line) => RFC5424.exec(line) ?? []);
        // local4 = 20: info (6) → 166, warn (4) → 164.
        expect(parsed.map((p) => Number(p[1])).sort()).toEqual([164, 166]);
        expect(parsed.map((p) => p[4])).toEqual(['threatlib-array', 'threatlib-array']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
