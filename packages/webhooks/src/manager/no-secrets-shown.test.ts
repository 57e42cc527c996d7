// Issue 21, finding 9: `webhooks.on(...)` returns the manager, and a user who logs it must not log the HMAC secret.
// The manager, its `options`, the value `on()` and `addOutgoing()` return, a started manager that received and sent
// webhooks, and the integration a client builds from `integrations.webhooks`, show no signing secret nor outgoing
// header value through JSON.stringify, util.inspect (depth Infinity), String() or a walk of enumerable properties.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, ThreatClient } from '@threatlib/core';
import { expectNoSecretShown } from '@threatlib/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookManager } from './webhook-manager.js';

const INCOMING_SECRET = 'incoming-secret-4Rk9vT2xLq7W';
const ROTATED_SECRET = `whsec_${Buffer.from('rotated-secret-8Hn3pZ6cYb1M').toString('base64')}`;
const OUTGOING_SECRET = `whsec_${Buffer.from('outgoing-secret-2Fd7sJ5mXe9K').toString('base64')}`;
const OUTGOING_TOKEN = 'outgoing-token-6Ty1gB8nQw3V';
const SECRETS = [
  INCOMING_SECRET,
  ROTATED_SECRET,
  ROTATED_SECRET.slice('whsec_'.length),
  'rotated-secret-8Hn3pZ6cYb1M',
  OUTGOING_SECRET,
  OUTGOING_SECRET.slice('whsec_'.length),
  'outgoing-secret-2Fd7sJ5mXe9K',
  OUTGOING_TOKEN,
];

let receiver: Server;
let receiverUrl: string;
let outboxDirectory: string;
const received: string[] = [];

beforeAll(async () => {
  outboxDirectory = await mkdtemp(join(tmpdir(), 'threatlib-webhooks-secrets-'));
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(String(request.headers.authorization));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await rm(outboxDirectory, { recursive: true, force: true });
});

it('a manager, the value on() returns and its options show no signing secret nor outgoing header, started or not', async () => {
  const manager = new WebhookManager(
    {
      server: { port: 0, path: '/webhooks' },
      authentication: { type: 'hmac', secret: [INCOMING_SECRET, ROTATED_SECRET] },
      delivery: { allowPrivateNetworks: true, outbox: { directory: join(outboxDirectory, 'manager') } },
    },
    { enforceHttps: false },
  );
  const returned = manager.on('threat-update', async () => {});
  manager.addOutgoing({
    name: 'soc',
    url: receiverUrl,
    events: ['high-confidence-threat'],
    headers: { Authorization: `Bearer ${OUTGOING_TOKEN}` },
    secret: OUTGOING_SECRET,
  });
  expectNoSecretShown('the value on() returns', returned, SECRETS);
  expectNoSecretShown('manager.options', manager.options, SECRETS);
  // The documented options stay readable, the secret redacted.
  expect(manager.options.server).toMatchObject({ port: 0, path: '/webhooks' });
  expect(manager.options.authentication).toMatchObject({ type: 'hmac', secret: '[redacted]' });

  await manager.start();
  try {
    const body = JSON.stringify({
      type: 'threat-update',
      timestamp: new Date().toISOString(),
      data: { indicator: 'evil-domain.com' },
    });
    const at = new Date();
    const response = await fetch(`${manager.address}/webhooks`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_secret_test',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(ROTATED_SECRET).sign('msg_secret_test', at, body),
      },
    });
    expect(response.status).toBe(204);
    const [result] = await manager.trigger('high-confidence-threat', {
      indicator: 'evil.example',
      confidence: 90,
      sources: ['feed_otx'],
    });
    expect(result?.status).toBe('delivered');
    expect(received).toContain(`Bearer ${OUTGOING_TOKEN}`);
    expectNoSecretShown('a started manager', manager, SECRETS);
    expectNoSecretShown('its deliveries', manager.deliveries(), SECRETS);
    expect(JSON.parse(JSON.stringify(manager))).toMatchObject({ address: manager.address });
  } finally {
    await manager.stop();
  }
});

it('the integration a client builds from integrations.webhooks, and the client', async () => {
  const client = new ThreatClient(
    {
      sources: ['feed_urls'],
      security: { enforceHttps: false },
      integrations: {
        webhooks: {
          incoming: { server: { port: 0 }, authentication: { type: 'hmac', secret: INCOMING_SECRET } },
          outgoing: [
            {
              name: 'soc',
              url: receiverUrl,
              events: ['high-confidence-threat'],
              headers: { Authorization: `Bearer ${OUTGOING_TOKEN}` },
              secret: OUTGOING_SECRET,
            },
          ],
          delivery: { allowPrivateNetworks: true, outbox: { directory: join(outboxDirectory, 'integration') } },
        },
      },
    },
    {
      env: false,
      logger: silentLogger,
      loadIntegrationPackage: (name) => (name === '@threatlib/webhooks' ? import('../index.js') : import(name)),
    },
  );
  await client.start();
  try {
    expectNoSecretShown('the webhooks integration', client.integration('webhooks'), SECRETS);
    expectNoSecretShown('the client', client, SECRETS);
  } finally {
    await client.stop();
  }
});
