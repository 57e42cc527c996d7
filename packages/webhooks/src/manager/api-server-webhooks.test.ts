import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { APIServer } from '@threatlib/server';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookManager } from './webhook-manager.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TOKEN = 'api-token-for-the-webhooks-test-0123';
const servers: APIServer[] = [];
const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-webhooks-api-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('APIServer serving a WebhookManager on its own port (option webhooks)', () => {
  it('verifies webhooks by their signatures, outside the API’s bearer authentication, which still guards the API', async () => {
    const manager = new WebhookManager({ authentication: { type: 'hmac', secret: SECRET } });
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => {
      seen.push(data);
    });
    const client = new ThreatClient(
      {
        sources: [],
        lists: [{ name: 'blocklist', file: listFile }],
        security: { enforceHttps: false },
      } as ThreatConfig,
      {
        env: false,
        logger: silentLogger,
      },
    );
    const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] }, webhooks: manager });
    server.mount('/api/v1', client);
    servers.push(server);
    const base = await server.start();

    const body = JSON.stringify({ type: 'threat-update', data: { indicator: 'evil.example' } });
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_api',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign('msg_api', new Date(), body),
    };
    const accepted = await fetch(`${base}/webhooks`, { method: 'POST', headers, body });
    expect(accepted.status).toBe(204);
    expect(seen).toEqual([{ indicator: 'evil.example' }]);
    const forged = await fetch(`${base}/webhooks`, { method: 'POST', headers, body: body.replace('evil', 'good') });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('x-content-type-options')).toBe('nosniff');

    // The API is untouched: it still wants its token, and still parses JSON.
    expect((await fetch(`${base}/api/v1/feeds/status`)).status).toBe(401);
    const alert = await fetch(`${base}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Known C2',
        severity: 'high',
        indicators: [{ type: 'domain', value: 'evil.threatlib-test.net' }],
      }),
    });
    expect(alert.status).toBe(201);
  });
});
