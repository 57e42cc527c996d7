import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../auth/password-hash.js';
import { EXIT, runCli } from './main.js';

async function run(argv: string[], extra: { env?: Record<string, string>; stdin?: string; stop?: Promise<void> } = {}) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: extra.env ?? {},
    cwd: mkdtempSync(join(tmpdir(), 'threatlib-cli-')),
    ...(extra.stdin === undefined ? {} : { stdin: Readable.from([extra.stdin]) }),
    ...(extra.stop ? { stopSignal: extra.stop } : {}),
  });
  return { code, out, err };
}

describe('threatlib scan', () => {
  it('exits 1 when an indicator is a threat, printing its evidence', async () => {
    const { code, out } = await run(['scan', '45.148.10.240', '198.51.100.250']);
    expect(code).toBe(EXIT.threat);
    expect(out).toMatch(/^45\.148\.10\.240\tmalicious\trisk \d+\tconfidence 100\tlisted in local list "example"/m);
    expect(out).toMatch(/^198\.51\.100\.250\tunknown/m);
  });

  it('exits 0 for a clean indicator and prints JSON lines with --format json', async () => {
    const { code, out } = await run(['scan', '10.0.0.1', '--format', 'json']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out.trim())).toMatchObject({ indicator: '10.0.0.1', verdict: 'clean', isThreat: false });
  });

  it('exits 4 when an input is invalid, reporting it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'threatlib-list-'));
    writeFileSync(join(dir, 'iocs.txt'), '# comment\n198.51.100.7\nnot an indicator\n');
    const { code, out } = await run(['scan', '--file', join(dir, 'iocs.txt')]);
    expect(code).toBe(EXIT.incomplete);
    expect(out).toMatch(/^not an indicator\tinvalid\tInvalid indicator/m);
  });

  it('exits 2 on usage errors and 3 on an invalid configuration', async () => {
    expect((await run(['scan'])).code).toBe(EXIT.usage);
    expect((await run(['scan', '1.2.3.4', '--format', 'xml'])).code).toBe(EXIT.usage);
    expect((await run(['launch'])).code).toBe(EXIT.usage);
    const bad = await run(['scan', '1.2.3.4'], { env: { THREATLIB_MAX_CONCURRENCY: 'abc' } });
    expect(bad.code).toBe(EXIT.config);
    expect(bad.err).toMatch(/Configuration invalid: THREATLIB_MAX_CONCURRENCY/);
  });

  it('correlate prints every source', async () => {
    const { code, out } = await run(['correlate', '45.148.10.240']);
    expect(code).toBe(EXIT.threat);
    expect(out).toMatch(/list:example\s+ok\s+malicious/);
    expect(out).toMatch(/feed_otx\s+not_configured/);
  });
});

describe('threatlib serve', () => {
  it('serves the embedded defaults with a printed bearer token until stopped', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let out = '';
    let announced!: () => void;
    const ready = new Promise<void>((resolve) => {
      announced = resolve;
    });
    const done = runCli(['serve', '--port', '0'], {
      out: (t) => {
        out += t;
        if (out.includes('Stop with Ctrl-C.')) announced();
      },
      err: () => {},
      env: {},
      cwd: tmpdir(),
      stopSignal: stopped,
    });
    await ready;
    const base = /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1];
    const token = /^ {2}token: +(\S+) +\(shown once/m.exec(out)?.[1];
    const scan = await fetch(`${base}/api/v1/threats/scan`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ indicator: '8.8.8.8' }),
    });
    expect(await scan.json()).toMatchObject({ verdict: 'clean' });
    const status = (await (
      await fetch(`${base}/api/v1/feeds/status`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      feeds: Array<{ feed: string; configured: boolean }>;
    };
    expect(status.feeds.every((f) => !f.configured)).toBe(true);
    stop();
    expect(await done).toBe(EXIT.ok);
  });
});

describe('threatlib hash-password', () => {
  it('prints a hash that verifies', async () => {
    const { code, out } = await run(['hash-password'], { stdin: 'hunter2\n' });
    expect(code).toBe(0);
    expect(await verifyPassword('hunter2', out.trim())).toBe(true);
  });
});

describe('threatlib worker', () => {
  function configFile(profile: object): string {
    const file = join(mkdtempSync(join(tmpdir(), 'threatlib-worker-config-')), 'threatlib.config.js');
    writeFileSync(file, `export default { test: ${JSON.stringify(profile)} };\n`);
    return file;
  }
  const base = { sources: ['feed_urls'], warninglists: { builtin: false }, logging: { enabled: false } };

  it('exits 3 saying what to configure when there is no integrations.messageQueue', async () => {
    const { code, err } = await run(['worker', '--config', configFile(base), '--profile', 'test']);
    expect(code).toBe(EXIT.config);
    expect(err).toContain('threatlib worker needs integrations.messageQueue');
  });

  it('exits 5 with the reason when its queue integration cannot start, warning that cluster is off', async () => {
    const file = configFile({
      ...base,
      integrations: { messageQueue: { type: 'rabbitmq', connection: 'amqp://127.0.0.1:1' } },
    });
    const { code, err } = await run(['worker', '--config', file, '--profile', 'test']);
    expect(code).toBe(EXIT.unavailable);
    expect(err).toContain('cluster is off');
    expect(err).toMatch(/threatlib worker could not start: .*messageQueue/);
  });

  it('refuses indicators on its command line', async () => {
    expect((await run(['worker', '198.51.100.1'])).code).toBe(EXIT.usage);
  });
});
