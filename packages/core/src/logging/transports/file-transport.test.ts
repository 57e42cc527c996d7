import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTransport } from './file-transport.js';
import { entryOf } from './test-entry.test-suite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-file-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The `seq` of every line of a file, gunzipped when its name ends with .gz. */
async function seqs(path: string): Promise<number[]> {
  const raw = await readFile(path);
  const text = path.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
}

const padding = 'x'.repeat(60);

describe('FileTransport', () => {
  it('rotates by size and leaves exactly maxFiles files, rotated ones gzipped, no line lost in them', async () => {
    const filename = join(dir, 'threatlib.log');
    const transport = new FileTransport({
      filename,
      maxSize: 2_000,
      maxFiles: 4,
      compress: true,
      level: 0,
      text: false,
    });
    const total = 600;
    for (let seq = 0; seq < total; seq++) transport.write(entryOf({ seq, padding, msg: 'line' }));
    await transport.close();

    expect((await readdir(dir)).sort()).toEqual([
      'threatlib.log',
      'threatlib.log.1.gz',
      'threatlib.log.2.gz',
      'threatlib.log.3.gz',
    ]);
    expect(transport.stats().rotations).toBeGreaterThan(10);
    // Oldest kept file first: together they hold the last lines, consecutive and ending with the last one.
    const kept = [
      ...(await seqs(`${filename}.3.gz`)),
      ...(await seqs(`${filename}.2.gz`)),
      ...(await seqs(`${filename}.1.gz`)),
      ...(await seqs(filename)),
    ];
    expect(kept.at(-1)).toBe(total - 1);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => total - kept.length + i));
    // Each rotated file reached maxSize before it was rotated.
    expect(gunzipSync(await readFile(`${filename}.1.gz`)).length).toBeGreaterThanOrEqual(2_000);
  });

  it('keeps rotated files plain without compress', async () => {
    const filename = join(dir, 'plain.log');
    const transport = new FileTransport({
      filename,
      maxSize: 1_000,
      maxFiles: 3,
      compress: false,
      level: 0,
      text: false,
    });
    for (let seq = 0; seq < 100; seq++) transport.write(entryOf({ seq, padding }));
    await transport.close();
    expect((await readdir(dir)).sort()).toEqual(['plain.log', 'plain.log.1', 'plain.log.2']);
    expect(await seqs(join(dir, 'plain.log.1'))).not.toEqual([]);
  });

  it('writes text lines when asked, and opens the file again after close', async () => {
    const filename = join(dir, 'text.log');
    const transport = new FileTransport({
      filename,
      maxSize: 1_000_000,
      maxFiles: 2,
      compress: true,
      level: 0,
      text: true,
    });
    transport.write(entryOf({ msg: 'first', category: 'feed' }));
    await transport.close();
    transport.write(entryOf({ msg: 'second', level: 40 }));
    await transport.flush();
    await transport.close();
    const lines = (await readFile(filename, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ INFO {2}\[feed\] first$/);
    expect(lines[1]).toMatch(/ WARN {2}second$/);
  });

  it('counts lines as dropped while the file cannot be opened, and says so once', async () => {
    const reports: string[] = [];
    const transport = new FileTransport({
      filename: join(dir, 'missing-dir', 'x.log', 'y.log'),
      maxSize: 1_000,
      maxFiles: 2,
      compress: false,
      level: 0,
      text: false,
      report: (_level, _fields, message) => reports.push(message),
    });
    // A file where a directory must be: opening fails.
    const blocker = new FileTransport({
      filename: join(dir, 'missing-dir', 'x.log'),
      maxSize: 1_000,
      maxFiles: 2,
      compress: false,
      level: 0,
      text: false,
    });
    blocker.write(entryOf({ msg: 'make x.log a file' }));
    await blocker.close();
    transport.write(entryOf({ msg: 'a' }));
    await transport.flush();
    await new Promise((resolve) => setImmediate(resolve));
    transport.write(entryOf({ msg: 'b' }));
    transport.write(entryOf({ msg: 'c' }));
    await transport.close();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/cannot be written/);
    expect(transport.stats().dropped).toBe(2);
  });

  it('refuses maxFiles below 2', () => {
    expect(
      () =>
        new FileTransport({
          filename: join(dir, 'a.log'),
          maxSize: 1,
          maxFiles: 1,
          compress: false,
          level: 0,
          text: false,
        }),
    ).toThrow(/maxFiles must be an integer of at least 2/);
  });
});
