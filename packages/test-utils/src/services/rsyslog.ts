import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describeWithServices, probeService } from '@threatlib/core/testing';

/** The rsyslog that `bash e2e/services up rsyslog` starts (e2e/services.d/rsyslog.sh): UDP and TCP on one port. */
export const E2E_RSYSLOG = { host: '127.0.0.1', port: 15514 } as const;

/** Where that rsyslog writes every message it receives, in RFC 5424 form (RSYSLOG_SyslogProtocol23Format). */
const RSYSLOG_MESSAGES =
  process.env.THREATLIB_RSYSLOG_FILE ??
  fileURLToPath(new URL('../../../../e2e/.state/rsyslog/messages.log', import.meta.url));

/** Whether the e2e rsyslog answers, found once per test file with a plain TCP connection. */
const rsyslog = await probeService({ name: 'rsyslog', ...E2E_RSYSLOG });

/**
 * `describe` for tests that need the e2e rsyslog: skipped, with the reason as the skipped test's name, when it is
 * down and `THREATLIB_E2E` is unset; failing loudly when `THREATLIB_E2E` is set.
 */
export function describeWithRsyslog(title: string, body: () => void): void {
  describeWithServices([rsyslog], title, body);
}

/**
 * The lines of rsyslog's file that contain `marker`, once there are at least `count` of them. rsyslog writes
 * asynchronously: the file is read again until then, up to a deadline (this waits on I/O, not on a clock to move).
 */
export async function rsyslogLines(marker: string, count: number, deadlineMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const text = await readFile(RSYSLOG_MESSAGES, 'utf8').catch(() => '');
    const lines = text.split('\n').filter((line) => line.includes(marker));
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) {
      throw new Error(`rsyslog wrote ${lines.length} of ${count} lines with ${marker} to ${RSYSLOG_MESSAGES} in time`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
