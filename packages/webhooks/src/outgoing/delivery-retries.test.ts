import { join } from 'node:path';
import { ManualClock } from '@threatlib/core/testing';
import { describe, expect, it } from 'vitest';
import { dir, manager, receiver, receivers, START, THREAT, until, WHSEC } from '../test-support/outgoing.js';
import { FileOutbox } from './outbox/file-outbox.js';
import { Receiver } from './receiver.test-suite.js';

describe('retries', () => {
  it('delivers to a receiver that is down for the first attempts, later, with the same webhook-id', async () => {
    const clock = new ManualClock(START);
    // A port that refuses connections until the receiver listens on it.
    const probe = await new Receiver().listen();
    const port = probe.port;
    await probe.close();
    const webhooks = manager({ allowPrivateNetworks: true, retrySchedule: [1_000, 2_000, 60_000] }, { clock });
    webhooks.addOutgoing({ name: 'late', url: `http://127.0.0.1:${port}/hook`, events: ['e'], secret: WHSEC });

    const [first] = await webhooks.trigger('e', THREAT);
    expect(first).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(START + 1_000).toISOString(),
    });
    expect(first?.error).toMatch(/ECONNREFUSED/);

    const late = new Receiver();
    receivers.push(late);
    await late.listen('127.0.0.1', port);
    late.answer = (_request, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200 };
    await clock.advance(1_000);
    await until(() => late.requests.length === 1);
    // Retry-After (30 s) outweighs the schedule's 2 s.
    await clock.advance(29_000);
    expect(late.requests).toHaveLength(1);
    await clock.advance(1_000);
    await until(() => late.requests.length === 2);
    await until(() => webhooks.deliveries({ status: 'delivered' }).length === 1);

    const [record] = webhooks.deliveries({ status: 'delivered' });
    expect(record).toMatchObject({ endpoint: 'late', messageId: first?.messageId, attempts: 3, statusCode: 200 });
    expect(late.requests.map((request) => request.headers['webhook-id'])).toEqual([first?.messageId, first?.messageId]);
    // Each attempt is signed at its own time, so a retry hours later is still within a receiver's tolerance.
    expect(late.requests.map((request) => request.headers['webhook-timestamp'])).toEqual([
      String((START + 1_000) / 1000),
      String((START + 31_000) / 1000),
    ]);
    expect(webhooks.deliveryStats).toMatchObject({ delivered: 1, retried: 2, attempts: 3, pending: 0 });
  });

  it('fails a delivery finally once its schedule is spent, recording it and emptying the outbox', async () => {
    const clock = new ManualClock(START);
    const down = await receiver();
    down.answer = () => ({ status: 500 });
    const webhooks = manager({ allowPrivateNetworks: true, retrySchedule: [1_000] }, { clock });
    webhooks.addOutgoing({ name: 'down', url: down.url(), events: ['e'] });
    const [first] = await webhooks.trigger('e', THREAT);
    expect(first).toMatchObject({ status: 'pending', statusCode: 500 });
    await clock.advance(1_000);
    await until(() => webhooks.deliveries({ status: 'failed' }).length === 1);
    expect(webhooks.deliveries()).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 2,
        statusCode: 500,
        error: 'the receiver answered HTTP 500',
      }),
    ]);
    expect(webhooks.deliveryStats).toMatchObject({ failed: 1, pending: 0 });
    await webhooks.stop();
    const outbox = new FileOutbox(join(dir, 'outbox'));
    expect(await outbox.open()).toEqual([]);
    await outbox.close();
  });

  it('disables an endpoint that answers 410 Gone: nothing more is sent to it', async () => {
    const gone = await receiver();
    gone.answer = () => ({ status: 410 });
    const webhooks = manager({ allowPrivateNetworks: true });
    webhooks.addOutgoing({ name: 'gone', url: gone.url(), events: ['e'] });
    expect((await webhooks.trigger('e', THREAT))[0]).toMatchObject({ status: 'failed', statusCode: 410 });
    expect((await webhooks.trigger('e', THREAT))[0]).toMatchObject({ status: 'failed', attempts: 0 });
    expect(gone.requests).toHaveLength(1);
    expect(webhooks.deliveryStats.endpoints.gone).toMatchObject({ disabled: true, failed: 2 });
  });
});

describe('the outbox', () => {
  it('keeps pending deliveries across a restart and sends them with the same webhook-id', async () => {
    const target = await receiver();
    target.answer = () => ({ status: 503 });
    const definition = { name: 'later', url: target.url(), events: ['e'], secret: WHSEC };
    const before = manager(
      { allowPrivateNetworks: true, retrySchedule: [3_600_000] },
      { clock: new ManualClock(START) },
    );
    before.addOutgoing(definition);
    const triggered = [
      ...(await before.trigger('e', { ...THREAT, indicator: 'a.example' })),
      ...(await before.trigger('e', { ...THREAT, indicator: 'b.example' })),
    ];
    expect(triggered.map((result) => result.status)).toEqual(['pending', 'pending']);
    await before.stop();

    target.answer = () => ({ status: 200 });
    const clock = new ManualClock(START + 3_600_000);
    const after = manager({ allowPrivateNetworks: true, retrySchedule: [3_600_000] }, { clock });
    after.addOutgoing(definition);
    await after.start();
    await until(() => after.deliveries({ status: 'delivered' }).length === 2);

    const ids = triggered.map((result) => result.messageId).sort();
    expect(
      target.requests
        .slice(2)
        .map((request) => request.headers['webhook-id'])
        .sort(),
    ).toEqual(ids);
    expect(after.deliveries({ status: 'delivered' }).map((record) => record.attempts)).toEqual([2, 2]);
  });

  it('lets only one manager use an outbox directory at a time', async () => {
    const first = manager();
    first.addOutgoing({ name: 'a', url: 'http://hooks.example/', events: ['e'] });
    await first.start();
    const second = manager();
    second.addOutgoing({ name: 'a', url: 'http://hooks.example/', events: ['e'] });
    await expect(second.trigger('e', THREAT)).rejects.toThrow(/held by another outbox of this process/);
  });
});
