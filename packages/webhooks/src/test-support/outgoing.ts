// What the outgoing-webhook tests share: managers and receivers made per test (closed after it), an outbox
// directory per test, a host resolver from a table, and a wait for a condition.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { WebhookManager, type WebhookManagerRuntime } from '../manager/webhook-manager.js';
import { type HostResolver, systemResolver } from '../network/guarded-agent.js';
import type { OutgoingOptions } from '../outgoing/outgoing-options.js';
import { Receiver } from '../outgoing/receiver.test-suite.js';

export const WHSEC = `whsec_${Buffer.from('a Standard Webhooks key of 32 bytes!').toString('base64')}`;
export const PLAIN = 'a plain shared secret, used as its UTF-8 bytes';
export const START = Date.parse('2026-03-01T12:00:00Z');

export let dir: string;
export const receivers: Receiver[] = [];
const managers: WebhookManager[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'threatlib-outgoing-'));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.stop()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await rm(dir, { recursive: true, force: true });
});

export async function receiver(host?: string): Promise<Receiver> {
  const made = await new Receiver().listen(host);
  receivers.push(made);
  return made;
}

export function manager(delivery: OutgoingOptions = {}, runtime: WebhookManagerRuntime = {}): WebhookManager {
  const made = new WebhookManager(
    { delivery: { outbox: { directory: join(dir, 'outbox') }, jitter: 0, ...delivery } },
    { enforceHttps: false, ...runtime },
  );
  managers.push(made);
  return made;
}

/** Names in `table` resolve as it says; any other name as the system resolves it (`localhost`). */
export const resolver =
  (table: Record<string, string>): HostResolver =>
  async (hostname) => {
    const address = table[hostname];
    if (!address) return systemResolver(hostname);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

export const THREAT = { indicator: '198.51.100.7', confidence: 92, sources: ['feed_otx', 'feed_abuse'] };

export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
