// What the WebhookManager tests share: a manager started on a free port with a manual clock (stopped after each
// test), requests signed by the Standard Webhooks reference library, and a logger that records its lines.
import type { Logger } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';
import type { WebhookManagerOptions } from '../manager/manager-options.js';
import { WebhookManager, type WebhookManagerRuntime } from '../manager/webhook-manager.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const NOW = Date.parse('2026-03-01T12:00:00Z');
const running: WebhookManager[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((manager) => manager.stop()));
});

export interface LogLine {
  level: string;
  obj: object;
  msg: string | undefined;
}

export function recordingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, obj, msg });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export async function started(options: Partial<WebhookManagerOptions> = {}, runtime: WebhookManagerRuntime = {}) {
  const clock = new ManualClock(NOW);
  const manager = new WebhookManager(
    { server: { port: 0, path: '/webhooks' }, authentication: { type: 'hmac', secret: SECRET }, ...options },
    { clock, ...runtime },
  );
  running.push(manager);
  await manager.start();
  return { manager, clock, base: manager.address as string };
}

let ids = 0;
/** A request signed by the Standard Webhooks reference library. */
export function signed(
  payload: unknown,
  { secret = SECRET, at = NOW, id = `msg_${++ids}` }: { secret?: string; at?: number; id?: string } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = new Webhook(secret).sign(id, new Date(at), body);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at / 1000)),
      'webhook-signature': signature,
    } as Record<string, string>,
  };
}

export function post(base: string, path: string, request: { body: string; headers: Record<string, string> }) {
  return fetch(`${base}${path}`, { method: 'POST', headers: request.headers, body: request.body });
}

export const update = (indicator = 'evil.example') => ({
  type: 'threat-update',
  timestamp: new Date(NOW).toISOString(),
  data: { indicator },
});
