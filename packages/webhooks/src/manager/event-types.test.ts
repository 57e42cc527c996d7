import { describe, expectTypeOf, it } from 'vitest';
import type { HighConfidenceThreatData, ThreatUpdateData } from '../events/documented-events.js';
import type { DeliveryResult } from '../outgoing/delivery-record.js';
import { WebhookManager } from './webhook-manager.js';

// Type-level checks, run by `tsc` (the package's typecheck): an error here, or an unused @ts-expect-error, fails it.
// The calls are only type-checked: the manager is never started.
const manager = new WebhookManager({});

describe('the documented webhook events are typed (INTERFACE.md 6.2)', () => {
  it('gives a threat-update handler its data with an indicator string', () => {
    manager.on('threat-update', async (data) => {
      expectTypeOf(data).toEqualTypeOf<ThreatUpdateData>();
      expectTypeOf(data.indicator).toEqualTypeOf<string>();
      expectTypeOf(data.anythingElse).toEqualTypeOf<unknown>();
    });
    // @ts-expect-error: a threat-update's indicator is a string.
    manager.on('threat-update', (data: { indicator: number }) => data.indicator);
  });

  it('lets the handler of any other event take any data, unknown unless the handler says', () => {
    manager.on('campaign-update', (data) => {
      expectTypeOf(data).toEqualTypeOf<unknown>();
    });
    manager.on('campaign-update', (data: { campaign: string }) => data.campaign);
    manager.on<{ campaign: string }>('campaign-update', (data) => data.campaign);
    const name: string = 'threat-update';
    manager.on(name, (data) => expectTypeOf(data).toEqualTypeOf<unknown>());
  });

  it('types the data of a high-confidence-threat trigger, and takes any data for other events', () => {
    const data: HighConfidenceThreatData = { indicator: 'evil.example', confidence: 92, sources: ['feed_otx'] };
    void (() => manager.trigger('high-confidence-threat', data));
    const sent = () =>
      manager.trigger('high-confidence-threat', { indicator: 'evil.example', confidence: 92, sources: ['feed_otx'] });
    expectTypeOf(sent).returns.toEqualTypeOf<Promise<DeliveryResult[]>>();
    // @ts-expect-error: confidence is a number (0 to 100).
    void (() => manager.trigger('high-confidence-threat', { indicator: 'x', confidence: 'high', sources: [] }));
    // @ts-expect-error: sources is required.
    void (() => manager.trigger('high-confidence-threat', { indicator: 'x', confidence: 90 }));
    void (() => manager.trigger('campaign-detected', { campaign: 'cmp_1', anything: [1, 2] }));
    void (() => manager.trigger('my-event', 'any data at all'));
  });
});
