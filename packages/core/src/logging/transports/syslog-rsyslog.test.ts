import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse-config.js';
import { withCategory } from '../categories.js';
import { closeLogger, createLogger, logTransportStats } from '../create-logger.js';
import { describeWithRsyslog, E2E_RSYSLOG, rsyslogLines } from './rsyslog-e2e.test-suite.js';

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
