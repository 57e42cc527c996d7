import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOutbox } from './file-outbox.js';
import { type OutboxEntry, outboxKey } from './outbox.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-file-outbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function entry(endpoint: string, id: string, attempts = 0): OutboxEntry {
  return {
    key: outboxKey(endpoint, id),
    messageId: id,
    endpoint,
    event: 'high-confidence-threat',
    body: JSON.stringify({ type: 'high-confidence-threat', data: { indicator: `"quoted"\n${id}` } }),
    createdAt: 1_000,
    attempts,
    nextAttemptAt: 2_000,
  };
}

describe('FileOutbox', () => {
  it('replays puts, replacements and removals when opened again, and rewrites the journal with what waits', async () => {
    const outbox = new FileOutbox(join(dir, 'box'));
    expect(await outbox.open()).toEqual([]);
    await Promise.all([outbox.put(entry('a', 'm1')), outbox.put(entry('b', 'm1')), outbox.put(entry('a', 'm2'))]);
    await outbox.put(entry('a', 'm1', 3));
    await outbox.remove(outboxKey('b', 'm1'));
    await outbox.close();
    expect((await readFile(join(dir, 'box', 'outbox.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(5);

    const again = new FileOutbox(join(dir, 'box'));
    expect(await again.open()).toEqual([entry('a', 'm1', 3), entry('a', 'm2')]);
    await again.close();
    // Opening compacted the journal to the two entries that wait.
    expect((await readFile(join(dir, 'box', 'outbox.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(2);
    expect((await stat(join(dir, 'box'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'box', 'outbox.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('ignores a line torn by a crash mid-write, keeping every line before it', async () => {
    const outbox = new FileOutbox(join(dir, 'box'));
    await outbox.open();
    await outbox.put(entry('a', 'm1'));
    await outbox.close();
    const journal = join(dir, 'box', 'outbox.jsonl');
    await appendFile(journal, '{"put":{"key":"a\\nm2","messageId":"m2","endp');
    const again = new FileOutbox(join(dir, 'box'));
    expect(await again.open()).toEqual([entry('a', 'm1')]);
    await again.put(entry('a', 'm3'));
    await again.close();
    const third = new FileOutbox(join(dir, 'box'));
    expect((await third.open()).map((e) => e.messageId)).toEqual(['m1', 'm3']);
    await third.close();
  });

  it('judges a line as the document outbox does: a lastError that is not text is no delivery, extra fields are dropped', async () => {
    const outbox = new FileOutbox(join(dir, 'box'));
    await outbox.open();
    await outbox.close();
    const journal = join(dir, 'box', 'outbox.jsonl');
    await appendFile(journal, `${JSON.stringify({ put: { ...entry('a', 'm1'), lastError: { status: 503 } } })}\n`);
    await appendFile(journal, `${JSON.stringify({ put: { ...entry('a', 'm2'), extra: 'x' } })}\n`);
    const again = new FileOutbox(join(dir, 'box'));
    expect(await again.open()).toEqual([entry('a', 'm2')]);
    await again.close();
  });

  it('refuses a second outbox on the same directory while the first is open, and takes over a dead process’s lock', async () => {
    const first = new FileOutbox(join(dir, 'box'));
    await first.open();
    await expect(new FileOutbox(join(dir, 'box')).open()).rejects.toThrow(/held by another outbox of this process/);
    await first.close();
    // A lock left by a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max default).
    await writeFile(join(dir, 'box', 'outbox.lock'), String(4_194_305));
    const next = new FileOutbox(join(dir, 'box'));
    await expect(next.open()).resolves.toEqual([]);
    await next.close();
    // A lock held by a live process (this test's parent) is respected.
    await writeFile(join(dir, 'box', 'outbox.lock'), String(process.ppid));
    await expect(new FileOutbox(join(dir, 'box')).open()).rejects.toThrow(`held by process ${process.ppid}`);
  });

  it('rejects writes once closed', async () => {
    const outbox = new FileOutbox(join(dir, 'box'));
    await outbox.open();
    await outbox.close();
    await expect(outbox.put(entry('a', 'm1'))).rejects.toThrow(/not open/);
  });
});
