import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { post, started } from '../test-support/webhook-manager.js';
import type { WebhookManager } from './webhook-manager.js';

describe('WebhookManager receiving (GitHub)', () => {
  const secret = "It's a Secret to Everybody";
  const github = (body: string, headers: Record<string, string | undefined> = {}) => ({
    body,
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        ...headers,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  });
  const counting = (manager: WebhookManager, ...events: string[]) => {
    const runs: Record<string, unknown[]> = Object.fromEntries(events.map((event) => [event, []]));
    for (const event of events) manager.on(event, (data) => void runs[event]?.push(data));
    return runs;
  };

  it('runs one body signed once at most once, whatever X-GitHub-Delivery says, and requires the header', async () => {
    const { manager, base } = await started({ authentication: { type: 'hmac', secret, scheme: 'github' } });
    const runs = counting(manager, 'push');
    const body = '{"type": "push", "data": {"ref": "refs/heads/main"}}';
    expect((await post(base, '/webhooks', github(body))).status).toBe(204);
    // A changed delivery id is no new message: the key is a digest of what is signed, the body.
    expect((await post(base, '/webhooks', github(body, { 'x-github-delivery': 'another-guid' }))).status).toBe(204);
    expect((await post(base, '/webhooks', github(body, { 'x-github-delivery': 'a-third-guid' }))).status).toBe(204);
    // A removed one is refused, before the body is read, saying what is missing.
    const missing = await post(base, '/webhooks', github(body, { 'x-github-delivery': undefined }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      type: 'https://threatlib.dev/problems/malformed-request',
      detail: 'X-GitHub-Delivery is required (GitHub sends the delivery GUID) and is missing',
    });
    const odd = await post(base, '/webhooks', github(body, { 'x-github-delivery': 'two words' }));
    expect(odd.status).toBe(400);
    expect(runs.push).toEqual([{ ref: 'refs/heads/main' }]);
    expect(manager.stats).toMatchObject({ handled: 1, replayed: 2, rejected: 2, unauthorized: 0 });
  });

  it('never takes the event from X-GitHub-Event or from the path, which GitHub does not sign', async () => {
    const { manager, base } = await started({ authentication: { type: 'hmac', secret, scheme: 'github' } });
    const runs = counting(manager, 'push', 'block-ip', 'threat-update');
    const bare = '{"indicator": "198.51.100.7"}';
    const header = await post(base, '/webhooks', github(bare, { 'x-github-event': 'block-ip' }));
    expect(header.status).toBe(400);
    expect(((await header.json()) as { detail: string }).detail).toContain(
      'GitHub signs neither the path nor X-GitHub-Event',
    );
    const path = await post(base, '/webhooks/threat-update', github(bare, { 'x-github-event': 'threat-update' }));
    expect(path.status).toBe(400);
    expect(((await path.json()) as { detail: string }).detail).toContain('server.pathEvents');
    // A signed envelope names its own event; the header does not override it.
    const envelope = '{"type": "push", "data": {"indicator": "198.51.100.7"}}';
    expect((await post(base, '/webhooks', github(envelope, { 'x-github-event': 'block-ip' }))).status).toBe(204);
    expect((await post(base, '/webhooks/block-ip', github(envelope, { 'x-github-event': 'block-ip' }))).status).toBe(
      400,
    );
    expect(runs).toEqual({ push: [{ indicator: '198.51.100.7' }], 'block-ip': [], 'threat-update': [] });
  });

  it('delivers the event server.pathEvents binds to a path: GitHub payloads as they are sent', async () => {
    const { manager, base } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'threat-update', 'github-push': 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github' },
    });
    const runs = counting(manager, 'push', 'block-ip', 'threat-update');
    const body = '{"indicator": "evil.example"}';
    const headers = { 'x-github-event': 'block-ip' };
    expect((await post(base, '/webhooks/github', github(body, headers))).status).toBe(204);
    // The same signed body on another bound path, or a path not listed, runs nothing.
    const other = await post(base, '/webhooks/github-push', github(body, headers));
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({
      type: 'https://threatlib.dev/problems/webhook-message-conflict',
      detail:
        'this signed message was received before for another event, so it cannot run the handlers of "push": one message runs the handlers of one event',
    });
    expect((await post(base, '/webhooks/block-ip', github(body, headers))).status).toBe(404);
    expect((await post(base, '/webhooks', github(body, headers))).status).toBe(400);
    expect(runs).toEqual({ push: [], 'block-ip': [], 'threat-update': [{ indicator: 'evil.example' }] });
    // Tampered, it is refused for its signature.
    expect((await post(base, '/webhooks/github', { ...github(body), body: body.replace('evil', 'good') })).status).toBe(
      401,
    );
    // GitHub's documented example verifies: "Hello, World!" is then refused as a payload (400), not a signature.
    const example = await post(base, '/webhooks/github', {
      body: 'Hello, World!',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      },
    });
    expect(example.status).toBe(400);
  });

  it('remembers a body for authentication.replayWindowSeconds (default a day), then runs it again', async () => {
    const { manager, base, clock } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github', replayWindowSeconds: 3_600 },
    });
    const runs = counting(manager, 'push');
    const body = '{"ref": "refs/heads/main"}';
    expect((await post(base, '/webhooks/github', github(body))).status).toBe(204);
    await clock.advance(3_599_000);
    expect((await post(base, '/webhooks/github', github(body, { 'x-github-delivery': 'redelivered' }))).status).toBe(
      204,
    );
    expect(runs.push).toHaveLength(1);
    await clock.advance(2_000);
    expect((await post(base, '/webhooks/github', github(body))).status).toBe(204);
    expect(runs.push).toHaveLength(2);

    const byDefault = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { github: 'push' } },
      authentication: { type: 'hmac', secret, scheme: 'github' },
    });
    const defaultRuns = counting(byDefault.manager, 'push');
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    await byDefault.clock.advance(86_399_000);
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    expect(defaultRuns.push).toHaveLength(1);
    await byDefault.clock.advance(2_000);
    expect((await post(byDefault.base, '/webhooks/github', github(body))).status).toBe(204);
    expect(defaultRuns.push).toHaveLength(2);
  });
});
