import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, it } from 'vitest';

/** The rsyslog that `./dev services up rsyslog` starts (e2e/services.d/rsyslog.sh): TCP on 127.0.0.1:15514. */
export const E2E_RSYSLOG = { host: '127.0.0.1', port: 15514 } as const;

/** Where that rsyslog writes every message it receives, in RFC 5424 form (RSYSLOG_SyslogProtocol23Format). */
const RSYSLOG_MESSAGES =
  process.env.THREATLIB_RSYSLOG_FILE ??
  fileURLToPath(new URL('../../../../e2e/.state/rsyslog/messages.log', import.meta.url));

const reachable = await new Promise<boolean>((resolve) => {
  const socket = connect(E2E_RSYSLOG);
  const done = (answer: boolean) => {
    socket.destroy();
    resolve(answer);
  };
  socket.setTimeout(1000, () => done(false));
  socket.once('error', () => done(false));
  socket.once('connect', () => done(true));
});

/**
 * `describe` for tests that need the e2e rsyslog: skipped with the reason as the test's name when it is down and
 * `THREATLIB_E2E` is unset; failing loudly when `THREATLIB_E2E` is set.
 */
export function describeWithRsyslog(title: string, body: () => void): void {
  describe(title, () => {
    const where = `${E2E_RSYSLOG.host}:${E2E_RSYSLOG.port}`;
    if (!reachable && !process.env.THREATLIB_E2E) {
      it.skip(`needs rsyslog at ${where} (start it with: ./dev services up rsyslog; THREATLIB_E2E=1 makes this fail)`);
      return;
    }
    beforeAll(() => {
      if (!reachable) throw new Error(`THREATLIB_E2E is set but rsyslog at ${where} does not answer`);
    });
    body();
  });
}

/**
 * The lines of rsyslog's file that contain `marker`, once there are `count` of them. rsyslog writes
 * asynchronously, so the file is read again until then, up to a deadline (this waits on I/O, not on a clock).
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
