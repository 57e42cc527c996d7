// A configuration file's lists may be MISP feeds: `threatlib scan` loads them with the others and flags what they list.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportMispFeed } from '@threatlib/core/misp';
import { describe, expect, it } from 'vitest';
import { EXIT, runCli } from './main.js';

async function scan(feedDirectory: string, ...indicators: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'threatlib-cli-misp-'));
  const config = join(cwd, 'threatlib.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      default: {
        sources: [],
        strategy: 'aggressive',
        logging: { enabled: false },
        lists: [{ name: 'partner', misp: { directory: feedDirectory, pollInterval: 0 } }],
      },
    }),
  );
  let out = '';
  let err = '';
  const code = await runCli(['scan', ...indicators, '--config', config], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: {},
    cwd,
  });
  return { code, out, err };
}

describe('threatlib scan with a MISP feed list', () => {
  it('flags what the feed lists, naming the event', async () => {
    const feed = mkdtempSync(join(tmpdir(), 'threatlib-cli-feed-'));
    await exportMispFeed(
      [
        {
          id: 'alert-7',
          title: 'Partner report',
          severity: 'high',
          timestamp: '2026-03-02T08:00:00Z',
          indicators: [{ type: 'ip', value: '198.51.100.7' }],
        },
      ],
      feed,
    );
    const { code, out } = await scan(feed, '198.51.100.7', '198.51.100.8');
    expect(code).toBe(EXIT.threat);
    const [listed, other] = out.trimEnd().split('\n');
    expect(listed).toMatch(
      /^198\.51\.100\.7\tmalicious\t.*listed in MISP feed "partner": event [0-9a-f-]{36} "Partner report" by threatlib/,
    );
    expect(other).toMatch(/^198\.51\.100\.8\tunknown/);
  });

  it('a feed it cannot read is said, not a crash', async () => {
    const { out } = await scan(join(tmpdir(), 'threatlib-no-such-feed'), '198.51.100.7');
    expect(out).toMatch(/Cannot load list MISP feed "partner" at .*threatlib-no-such-feed: manifest\.json is not in/);
  });
});
