import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreatClient } from '../src/client/threat-client.js';
import { InsecureEndpointError } from '../src/errors/insecure-endpoint-error.js';
import { IntegrationError } from '../src/errors/integration-error.js';
import { silentLogger } from '../src/logging/logger.js';
import { AlertWebhookPlugin } from './alert-webhook-plugin.js';

declare module '../src/integration/integration.js' {
  interface IntegrationRegistry {
    alertWebhook: AlertWebhookPlugin;
  }
}

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

let server: Server;
let endpoint: string;
const received: Received[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body: body ? JSON.parse(body) : undefined,
    });
    if (req.headers.authorization !== 'Bearer s3cret') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: true, id: 'rcv-1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function client(enforceHttps = false) {
  return new ThreatClient({ sources: ['feed_urls'], security: { enforceHttps } }, { env: false, logger: silentLogger });
}

describe('the documented example plugin', () => {
  it('registers, then posts an alert as JSON with a bearer token and returns the parsed answer', async () => {
    const c = client();
    const plugin = c.registerIntegration('alertWebhook', AlertWebhookPlugin, { endpoint, token: 's3cret' });
    expect(c.integration('alertWebhook')).toBe(plugin);
    await c.start();
    const alert = await c.alerts.add({
      title: 'Known C2 contacted',
      severity: 'high',
      indicators: [{ type: 'ip', value: '203.0.113.7', confidence: 90 }],
    });
    const answer = await plugin.sendAlert(alert);
    await c.stop();

    expect(answer).toEqual({ accepted: true, id: 'rcv-1' });
    const last = received.at(-1);
    expect(last).toMatchObject({
      method: 'POST',
      url: '/hooks/alerts',
      authorization: 'Bearer s3cret',
      contentType: 'application/json',
      body: {
        id: alert.id,
        title: 'Known C2 contacted',
        severity: 'high',
        indicators: [{ type: 'ipv4', value: '203.0.113.7', confidence: 90 }],
      },
    });
    expect((await c.integrationHealth())[0]).toMatchObject({ name: 'alertWebhook', healthy: true });
  });

  it('reads its options from config.integrations when none are passed', async () => {
    const c = new ThreatClient(
      {
        sources: ['feed_urls'],
        security: { enforceHttps: false },
        integrations: { alertWebhook: { endpoint, token: 'wrong' } },
      },
      { env: false, logger: silentLogger },
    );
    const plugin = c.registerIntegration('alertWebhook', AlertWebhookPlugin);
    await c.start();
    const alert = await c.alerts.add({ title: 't', severity: 'low' });
    await expect(plugin.sendAlert(alert)).rejects.toThrow(/answered HTTP 401/);
    await c.stop();
  });

  it('is refused a plain-HTTP endpoint while enforceHttps is on, naming the integration', () => {
    const c = client(true);
    let error: unknown;
    try {
      c.registerIntegration('alertWebhook', AlertWebhookPlugin, { endpoint, token: 's3cret' });
    } catch (e) {
      error = e;
    }
    expect(IntegrationError.isInstance(error)).toBe(true);
    expect((error as IntegrationError).message).toMatch(/Integration "alertWebhook" could not be created: .*not HTTPS/);
    expect(InsecureEndpointError.isInstance((error as IntegrationError).cause)).toBe(true);
  });

  it('refuses missing options with the reason', () => {
    expect(() => client().registerIntegration('alertWebhook', AlertWebhookPlugin, { endpoint })).toThrow(
      /options\.token is required/,
    );
  });
});
