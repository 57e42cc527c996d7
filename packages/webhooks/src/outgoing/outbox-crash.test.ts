import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Receiver } from './receiver.test-suite.js';

// The child runs the package's source with Node's type stripping (no build to go stale); sources import `./x.js`
// where `./x.ts` is on disk, which this hook maps, as tsc does at build time.
const RESOLVE_HOOK = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
      return next(specifier.slice(0, -3) + '.ts', context);
    }
    throw error;
  }
}
`;

const MANAGER = fileURLToPath(new URL('../manager/webhook-manager.ts', import.meta.url));

// A process with a manager on a file outbox. `trigger`: sends COUNT events and prints their ids once every one is
// in the outbox (deliveries lists it), then keeps delivering until it is killed. `resume`: starts, waits until
// nothing is pending, prints its counters and stops.
const CHILD = `
import { register } from 'node:module';
register(new URL('./resolve-ts.mjs', import.meta.url));
const { WebhookManager } = await import(${JSON.stringify(MANAGER)});
const [mode, directory, url, count] = process.argv.slice(2);
const manager = new WebhookManager(
  { delivery: { outbox: { directory }, allowPrivateNetworks: true, concurrency: 4, retrySchedule: [200, 200, 200], jitter: 0, timeoutMs: 60000 } },
  { enforceHttps: false },
);
manager.addOutgoing({ name: 'receiver', url, events: ['high-confidence-threat'], secret: 'the secret of the crash test' });
await manager.start();
if (mode === 'trigger') {
  for (let i = 0; i < Number(count); i++) {
    void manager.trigger('high-confidence-threat', { indicator: 'host' + i + '.example', confidence: 90, sources: ['feed_otx'] });
  }
  while (manager.deliveries().length < Number(count)) await new Promise((r) => setTimeout(r, 5));
  process.stdout.write(JSON.stringify({ ids: manager.deliveries().map((d) => d.messageId) }) + '\\n');
  await new Promise(() => {});
} else {
  while (manager.deliveryStats.pending > 0) await new Promise((r) => setTimeout(r, 5));
  process.stdout.write(JSON.stringify(manager.deliveryStats) + '\\n');
  await manager.stop();
}
`;

let dir: string;
let receiver: Receiver;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-outbox-crash-'));
  await writeFile(join(dir, 'resolve-ts.mjs'), RESOLVE_HOOK);
  await writeFile(join(dir, 'child.mjs'), CHILD);
  receiver = await new Receiver().listen();
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

function run(...args: string[]): { child: ChildProcess; lines: AsyncIterator<string>; exit: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', join(dir, 'child.mjs'), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines: createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator](),
    exit,
  };
}

async function firstLine(lines: AsyncIterator<string>): Promise<Record<string, unknown>> {
  const next = await lines.next();
  if (next.done) throw new Error('the child exited without printing');
  return JSON.parse(next.value) as Record<string, unknown>;
}

describe('a manager killed mid-delivery', () => {
  it('delivers every pending webhook once restarted: the ids received are the ids triggered', async () => {
    const COUNT = 25;
    const acknowledged = new Set<string>();
    // First life: the receiver takes three deliveries and then holds every request without answering, so the
    // process dies with deliveries written, some attempted and unanswered, and the rest waiting their turn.
    receiver.answer = (request, index) => {
      if (index >= 3) return 'hold';
      acknowledged.add(request.headers['webhook-id'] ?? '');
      return { status: 200 };
    };
    const outbox = join(dir, 'outbox');
    const first = run('trigger', outbox, receiver.url(), String(COUNT));
    const { ids } = (await firstLine(first.lines)) as { ids: string[] };
    expect(new Set(ids).size).toBe(COUNT);
    const deadline = Date.now() + 20_000;
    while (receiver.requests.length < 3 + 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.requests.length).toBeGreaterThanOrEqual(7);
    first.child.kill('SIGKILL');
    expect(await first.exit).toBeNull();
    expect(acknowledged.size).toBeLessThan(COUNT);

    // Second life: the receiver answers everything.
    receiver.answer = (request) => {
      acknowledged.add(request.headers['webhook-id'] ?? '');
      return { status: 200 };
    };
    const second = run('resume', outbox, receiver.url(), '0');
    const stats = (await firstLine(second.lines)) as { pending: number; failed: number; delivered: number };
    expect(await second.exit).toBe(0);

    expect(stats).toMatchObject({ pending: 0, failed: 0 });
    expect(stats.delivered).toBeGreaterThanOrEqual(COUNT - 3);
    expect([...acknowledged].sort()).toEqual([...ids].sort());
    // At least once: an id may arrive twice (answered, then killed before its removal was written), never with a new id.
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set(ids));
  }, 60_000);
});
