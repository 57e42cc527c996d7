import { ValidationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { post, signed, started, update } from '../test-support/webhook-manager.js';

describe('WebhookManager receiving: one signed message runs the handlers of one event', () => {
  const strict = (data: unknown) => {
    if (typeof (data as { indicator?: unknown } | null)?.indicator !== 'string') {
      throw new ValidationError('a data', [{ path: 'indicator', message: 'required' }]);
    }
  };

  it('refuses the same signed message on another path (409) after it was refused as input there (400)', async () => {
    const { manager, base } = await started();
    const runs: string[] = [];
    manager.on('a', (data) => {
      runs.push('a');
      strict(data);
    });
    manager.on('b', () => void runs.push('b'));
    // Signed, not an envelope: the event comes from the path, which the signature does not cover.
    const request = signed({ host: 'evil.example' });
    const first = await post(base, '/webhooks/a', request);
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ detail: 'Invalid a data: indicator: required' });
    const swapped = await post(base, '/webhooks/b', request);
    expect(swapped.status).toBe(409);
    expect(runs).toEqual(['a']);
    // The sender's retry on its own path is still handled (and refused the same way).
    expect((await post(base, '/webhooks/a', request)).status).toBe(400);
    expect(runs).toEqual(['a', 'a']);
    expect(manager.stats).toMatchObject({ handled: 0, rejected: 3, failed: 0 });
  });

  it('refuses it on another path after its handler failed (500), and runs the retry on the same path', async () => {
    const { manager, base } = await started();
    const runs: string[] = [];
    let failing = true;
    manager.on('a', () => {
      runs.push('a');
      if (failing) throw new Error('database unavailable');
    });
    manager.on('b', () => void runs.push('b'));
    const request = signed({ indicator: 'evil.example' });
    expect((await post(base, '/webhooks/a', request)).status).toBe(500);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    failing = false;
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    expect(runs).toEqual(['a', 'a']);
  });

  it('remembers the event for the tolerance window; a message that reached no event is bound to none', async () => {
    const { manager, base, clock } = await started();
    const runs: string[] = [];
    manager.on('a', () => void runs.push('a'));
    manager.on('b', () => void runs.push('b'));
    const request = signed({ indicator: 'evil.example' });
    // No event named, or an event with no handler: nothing ran, so the message may still go where it was meant for.
    expect((await post(base, '/webhooks', request)).status).toBe(400);
    expect((await post(base, '/webhooks/A', request)).status).toBe(404);
    expect((await post(base, '/webhooks/a', request)).status).toBe(204);
    await clock.advance(299_000);
    expect((await post(base, '/webhooks/b', request)).status).toBe(409);
    // Past the tolerance the signature itself is refused.
    await clock.advance(2_000);
    expect((await post(base, '/webhooks/b', request)).status).toBe(401);
    expect(runs).toEqual(['a']);
  });

  it('serves only the paths server.pathEvents binds, each delivering its event', async () => {
    const { manager, base } = await started({
      server: { port: 0, path: '/webhooks', pathEvents: { intel: 'threat-update' } },
    });
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => void seen.push(data));
    manager.on('block-ip', () => void seen.push('block-ip'));
    expect((await post(base, '/webhooks/intel', signed({ indicator: 'a.example' }))).status).toBe(204);
    expect((await post(base, '/webhooks/intel', signed(update('b.example')))).status).toBe(204);
    const other = await post(base, '/webhooks/block-ip', signed({ indicator: 'c.example' }));
    expect(other.status).toBe(404);
    expect(((await other.json()) as { detail: string }).detail).toBe(
      'no event is bound to this path (server.pathEvents lists the paths served)',
    );
    expect((await post(base, '/webhooks/intel', signed({ type: 'block-ip', data: {} }))).status).toBe(400);
    // The envelope on the bare path still names its own (signed) event.
    expect((await post(base, '/webhooks', signed(update('d.example')))).status).toBe(204);
    expect(seen).toEqual([{ indicator: 'a.example' }, { indicator: 'b.example' }, { indicator: 'd.example' }]);
  });

  it('checks the documented data of threat-update before any handler runs: an indicator string (400 otherwise)', async () => {
    const { manager, base } = await started();
    const seen: unknown[] = [];
    manager.on('threat-update', (data) => void seen.push(data.indicator));
    const problem = async (payload: unknown) => {
      const response = await post(base, '/webhooks', signed(payload));
      return { status: response.status, detail: ((await response.json()) as { detail: string }).detail };
    };
    expect(await problem({ type: 'threat-update', data: { host: 'evil.example' } })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: indicator: required: the indicator (a string); got nothing',
    });
    expect(await problem({ type: 'threat-update', data: { indicator: 42 } })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: indicator: required: the indicator (a string); got a number',
    });
    expect(await problem({ type: 'threat-update', data: 'evil.example' })).toEqual({
      status: 400,
      detail: 'Invalid threat-update data: (root): expected an object with an indicator; got a string',
    });
    expect(seen).toEqual([]);
    expect((await post(base, '/webhooks', signed(update('evil.example')))).status).toBe(204);
    expect(seen).toEqual(['evil.example']);
  });
});
