import { ManualClock } from '@threatlib/core/testing';
import Fastify from 'fastify';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookManager } from './webhook-manager.js';
import { webhooksPlugin } from './webhooks-plugin.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = Date.parse('2026-03-01T12:00:00Z');

function signedRequest(path: string, payload: unknown, id: string) {
  const body = JSON.stringify(payload);
  return {
    method: 'POST' as const,
    url: path,
    payload: body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(NOW / 1000),
      'webhook-signature': new Webhook(SECRET).sign(id, new Date(NOW), body),
    },
  };
}

describe('webhooksPlugin', () => {
  it('serves the manager’s routes on an application’s fastify and leaves the application’s own parsing alone', async () => {
    const manager = new WebhookManager(
      { server: { path: '/hooks' }, authentication: { type: 'hmac', secret: SECRET } },
      { clock: new ManualClock(NOW) },
    );
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => {
      seen.push(data);
    });
    const app = Fastify();
    app.post('/api/echo', async (request) => ({ body: request.body, isBuffer: Buffer.isBuffer(request.body) }));
    await app.register(webhooksPlugin, { manager });
    try {
      const accepted = await app.inject(
        signedRequest('/hooks', { type: 'threat-update', data: { indicator: 'x.example' } }, 'm1'),
      );
      expect(accepted.statusCode).toBe(204);
      expect(seen).toEqual([{ indicator: 'x.example' }]);
      const refused = await app.inject({
        ...signedRequest('/hooks/threat-update', { indicator: 'y' }, 'm2'),
        payload: '{"indicator":"z"}',
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['x-content-type-options']).toBe('nosniff');

      const echo = await app.inject({ method: 'POST', url: '/api/echo', payload: { a: 1 } });
      expect(echo.json()).toEqual({ body: { a: 1 }, isBuffer: false });
    } finally {
      await app.close();
    }
  });

  it('counts refused signatures per address as the manager’s own server does: past the limit, 429 even signed', async () => {
    const manager = new WebhookManager(
      {
        server: { path: '/hooks', failedSignatureLimit: { max: 3, windowMs: 60_000 } },
        authentication: { type: 'hmac', secret: SECRET },
      },
      { clock: new ManualClock(NOW) },
    );
    manager.on('threat-update', () => undefined);
    const app = Fastify();
    await app.register(webhooksPlugin, { manager });
    try {
      const forged = (id: string, remoteAddress: string) => ({
        ...signedRequest('/hooks', { type: 'threat-update', data: {} }, id),
        payload: '{"type":"threat-update","data":{"forged":true}}',
        remoteAddress,
      });
      for (let i = 0; i < 3; i++) expect((await app.inject(forged(`f${i}`, '198.51.100.7'))).statusCode).toBe(401);
      const shutOut = await app.inject({
        ...signedRequest('/hooks', { type: 'threat-update', data: { indicator: 'evil.example' } }, 'ok1'),
        remoteAddress: '198.51.100.7',
      });
      expect(shutOut.statusCode).toBe(429);
      expect(Number(shutOut.headers['retry-after'])).toBeGreaterThan(0);
      const other = await app.inject({
        ...signedRequest('/hooks', { type: 'threat-update', data: { indicator: 'evil.example' } }, 'ok2'),
        remoteAddress: '198.51.100.8',
      });
      expect(other.statusCode).toBe(204);
      expect(manager.stats.limited).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('refuses to serve a manager that has no authentication', async () => {
    const manager = new WebhookManager({});
    const app = Fastify();
    await expect(app.register(manager.plugin).ready()).rejects.toThrow(
      'incoming webhooks need authentication: give the manager authentication: {type: "hmac", secret}',
    );
    await app.close();
  });
});
