// `threatlib scan --file` reads lists from anywhere (feeds, reports, pastes): a file it cannot read is a clear usage
// error, a line of any length costs bounded memory, and what it echoes of a line cannot drive the terminal.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indicatorLines } from './indicator-lines.js';
import { EXIT, runCli } from './main.js';

async function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: {},
    cwd: mkdtempSync(join(tmpdir(), 'threatlib-cli-')),
  });
  return { code, out, err };
}

function listFile(content: string | Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), 'threatlib-list-')), 'iocs.txt');
  writeFileSync(file, content);
  return file;
}

describe('threatlib scan --file', () => {
  it('a file that does not exist: exit 2 naming it, not a crash (exit 1 would say "threat found")', async () => {
    const missing = join(tmpdir(), 'threatlib-no-such-list.txt');
    const { code, err } = await run(['scan', '--file', missing]);
    expect(code).toBe(EXIT.usage);
    expect(err).toContain(`--file ${missing}: no such file`);
  });

  it('a directory: exit 2 saying it is not a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'threatlib-dir-'));
    const { code, err } = await run(['scan', '--file', dir]);
    expect(code).toBe(EXIT.usage);
    expect(err).toContain(`--file ${dir}: is a directory, not a file`);
  });

  it('a line of 40 MB is refused as too long, echoed cut, and the lines around it are scanned', async () => {
    const file = listFile(`198.51.100.7\n${'a'.repeat(40 * 1024 * 1024)}\n45.148.10.240\n`);
    const { code, out } = await run(['scan', '--file', file]);
    expect(code).toBe(EXIT.threat);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^198\.51\.100\.7\tunknown/);
    expect(lines[1]).toMatch(/\tinvalid\tInvalid indicator .*longer than 8 KiB/);
    expect(lines[1]?.length).toBeLessThan(20_000);
    expect(lines[2]).toMatch(/^45\.148\.10\.240\tmalicious/);
  });

  it('a valid indicator with whitespace around it is still read, however much', async () => {
    const file = listFile(`${' '.repeat(30_000)}45.148.10.240${' '.repeat(30_000)}\r\n`);
    const { code, out } = await run(['scan', '--file', file]);
    expect(code).toBe(EXIT.threat);
    expect(out).toMatch(/^45\.148\.10\.240\tmalicious/);
  });

  it('a line with more after 20,000 spaces is refused, not cut to its first token', async () => {
    const file = listFile(`45.148.10.240${' '.repeat(20_000)}x\n`);
    const { code, out } = await run(['scan', '--file', file]);
    expect(code).toBe(EXIT.incomplete);
    expect(out).toMatch(/\tinvalid\tInvalid indicator .*(whitespace|longer than 8 KiB)/);
  });

  it('echoes an invalid line with its control characters escaped, so it cannot drive the terminal', async () => {
    const file = listFile('\u001b]0;owned\u0007evil\u001b[2J.com\n');
    const { code, out } = await run(['scan', '--file', file]);
    expect(code).toBe(EXIT.incomplete);
    expect(out).not.toMatch(/\p{Cc}(?<!\n)(?<!\t)/u);
    expect(out).toContain('"\\u001b]0;owned\\u0007evil\\u001b[2J.com"\tinvalid\t');
  });
});

describe('indicatorLines', () => {
  // Longer than any JavaScript string may be (V8: 2^29 - 24 characters): a reader that held the line whole (as
  // readline does) could not even build it.
  it('reads past a line of 600 million characters with no newline, keeping a bounded part of it', async () => {
    const chunk = 'a'.repeat(64 * 1024);
    async function* source() {
      yield '198.51.100.7\r\n';
      for (let i = 0; i < 600_000_000 / chunk.length; i++) yield chunk;
      yield '\n  45.148.10.240  \n# a comment\n\n';
    }
    const lines: string[] = [];
    for await (const line of indicatorLines(source())) lines.push(line);
    expect(lines.map((line) => line.slice(0, 20))).toEqual(['198.51.100.7', 'a'.repeat(20), '45.148.10.240']);
    expect(lines[1]?.length).toBeLessThanOrEqual(16 * 1024 + 1);
  });
});
