import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConfigCommand } from './config-command.js';

async function run(argv: string[], env: Record<string, string> = {}, cwd = mkdtempSync(join(tmpdir(), 'tl-cli-'))) {
  let out = '';
  let err = '';
  const code = await runConfigCommand(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd });
  return { code, out, err };
}

const example = fileURLToPath(new URL('../../examples/threatlib.config.js', import.meta.url));

describe('threatlib-config', () => {
  it('shows the embedded defaults: feed_urls usable, the keyed feeds not configured', async () => {
    const { code, out } = await run(['show']);
    expect(code).toBe(0);
    expect(out).toContain('Configuration: embedded defaults: valid');
    expect(out).toMatch(/feed_urls\s+ready\s+URLhaus/);
    for (const feed of ['feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan']) {
      expect(out).toMatch(new RegExp(`${feed}\\s+not_configured`));
    }
    expect(out).toContain('apiKeys.feed_scan: ');
  });

  it('masks keys that come from the environment', async () => {
    const { out } = await run(['show', '--json'], { THREATLIB_FEED_OTX_API_KEY: 'super-secret-otx-key' });
    expect(out).not.toContain('super-secret-otx-key');
    const report = JSON.parse(out);
    expect(report.config.apiKeys.feed_otx).toBe('[redacted]');
    expect(report.feeds.find((f: { feed: string }) => f.feed === 'feed_otx').status).toBe('ready');
  });

  it('checks a profile of the example file', async () => {
    const { code, out } = await run(['check', '--config', example, '--profile', 'enterprise']);
    expect(code).toBe(0);
    expect(out).toContain('(profile "enterprise"): valid');
  });

  it('exits 1 with the Configuration invalid message for a bad variable', async () => {
    const { code, err } = await run(['check'], { THREATLIB_MAX_CONCURRENCY: 'abc' });
    expect(code).toBe(1);
    expect(err).toMatch(/^Configuration invalid: THREATLIB_MAX_CONCURRENCY: expected a whole number, got "abc"/);
  });

  it('uses threatlib.config.js from the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-cli-'));
    writeFileSync(
      join(dir, 'threatlib.config.js'),
      "export default { default: { sources: ['feed_cti'], apiKeys: { feed_cti: 'k' } } };",
    );
    const { code, out } = await run(['check'], {}, dir);
    expect(code).toBe(0);
    expect(out).toMatch(/feed_cti\s+ready/);
  });

  it('exits 2 on usage errors', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['frobnicate'])).err).toContain('Unknown command "frobnicate"');
    expect((await run(['show', '--nope'])).code).toBe(2);
    expect((await run(['show', '--profile', 'x'])).err).toContain('needs a config file');
  });
});
