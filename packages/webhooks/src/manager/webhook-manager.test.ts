import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import type { WebhookOutbox } from '../outgoing/outbox/outbox.js';
import { SECRET, started } from '../test-support/webhook-manager.js';
import type { WebhookManagerOptions } from './manager-options.js';
import { WebhookManager } from './webhook-manager.js';

describe('WebhookManager options', () => {
  it('refuses a short secret, a missing authentication and a bad path, naming each without quoting the secret', () => {
    const attempt = (options: unknown) => {
      try {
        new WebhookManager(options as WebhookManagerOptions);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const short = attempt({ authentication: { type: 'hmac', secret: 'tiny-secret' } });
    expect(ConfigurationError.isInstance(short)).toBe(true);
    expect((short as Error).message).toBe(
      'Configuration invalid: webhooks.authentication.secret: the secret has 11 bytes; use at least 16 (a "whsec_" secret counts its decoded bytes)',
    );
    expect((attempt({ server: { port: 0 } }) as Error).message).toBe(
      'Configuration invalid: webhooks.authentication: required to receive webhooks on server.port: {type: "hmac", secret}',
    );
    expect(
      (attempt({ server: { path: 'hooks' }, authentication: { type: 'hmac', secret: SECRET } }) as Error).message,
    ).toBe('Configuration invalid: webhooks.server.path: expected a path such as "/webhooks"');
    const badWhsec = attempt({ authentication: { type: 'hmac', secret: 'whsec_not base64!!' } }) as Error;
    expect(badWhsec.message).toContain('a "whsec_" secret must be base64 after the prefix');
    expect(badWhsec.message).not.toContain('not base64!!');
  });

  it('refuses a replay window outside the github scheme and path bindings that are not a segment and an event', () => {
    const message = (options: unknown) => {
      try {
        new WebhookManager(options as WebhookManagerOptions);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(message({ authentication: { type: 'hmac', secret: SECRET, replayWindowSeconds: 3_600 } })).toBe(
      'Configuration invalid: webhooks.authentication.replayWindowSeconds: only for scheme "github": a Standard Webhooks message is remembered while its timestamp is within toleranceSeconds',
    );
    const github = { type: 'hmac', secret: SECRET, scheme: 'github' };
    expect(message({ authentication: { ...github, replayWindowSeconds: 10 } })).toMatch(
      /^Configuration invalid: webhooks\.authentication\.replayWindowSeconds: /,
    );
    expect(message({ authentication: { ...github, replayWindowSeconds: 604_800 } })).toBeUndefined();
    const bound = (pathEvents: unknown) => message({ server: { pathEvents }, authentication: github });
    expect(bound(JSON.parse('{"__proto__": "push"}'))).toMatch(/server\.pathEvents.*expected a path segment/);
    expect(bound({ 'a/b': 'push' })).toMatch(/expected a path segment/);
    expect(bound({ github: 'not an event!' })).toMatch(/server\.pathEvents\.github: expected an event name/);
    expect(bound(['push'])).toMatch(/expected \{"<path segment>": "<event name>"\}/);
    expect(bound({ github: 'push' })).toBeUndefined();
  });

  it('opens no server without a port; its routes are served only where the plugin is registered', async () => {
    const manager = new WebhookManager({ authentication: { type: 'hmac', secret: SECRET } });
    await manager.start();
    expect(manager.address).toBeUndefined();
    await manager.stop();
  });

  it('releases its port on stop()', async () => {
    const { manager, base } = await started();
    await manager.stop();
    await expect(fetch(`${base}/webhooks`, { method: 'POST' })).rejects.toThrow();
  });

  it("keeps its deliveries in the runtime's defaultOutbox only when delivery.outbox is not given", async () => {
    const calls: string[] = [];
    const memory: WebhookOutbox = {
      open: async () => {
        calls.push('open');
        return [];
      },
      put: async () => undefined,
      remove: async () => undefined,
      close: async () => void calls.push('close'),
    };
    const offered = new WebhookManager({}, { defaultOutbox: () => memory });
    await offered.start();
    await offered.stop();
    expect(calls).toEqual(['open', 'close']);

    let asked = 0;
    const directory = await mkdtemp(join(tmpdir(), 'threatlib-manager-outbox-'));
    const named = new WebhookManager(
      { delivery: { outbox: { directory } } },
      {
        defaultOutbox: () => {
          asked++;
          return memory;
        },
      },
    );
    await named.start();
    await named.stop();
    expect(asked).toBe(0);
    await rm(directory, { recursive: true, force: true });

    const broken = new WebhookManager({}, { defaultOutbox: () => ({ open: async () => [] }) as never });
    await expect(broken.start()).rejects.toThrow(/lacks open, put, remove or close/);
  });
});
