import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThreatClient } from '../client/threat-client.js';
import type { Logger } from '../logging/logger.js';
import { EventBus } from './event-bus.js';
import type { ThreatEvents } from './threat-events.js';

function recordingLogger() {
  const errors: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error(obj, msg) {
      errors.push({ obj: obj as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
    },
  };
  return { logger, errors };
}

describe('EventBus', () => {
  const unhandled = vi.fn();
  process.on('unhandledRejection', unhandled);
  afterEach(() => unhandled.mockClear());

  it('delivers typed arguments to every handler', () => {
    const bus = new EventBus<ThreatEvents>(recordingLogger().logger);
    const seen: unknown[] = [];
    bus.on('threatFound', (threat) => seen.push(['a', threat.indicator, threat.severity]));
    bus.on('requestComplete', (duration, feed) => seen.push(['b', duration, feed]));
    bus.emit('threatFound', { indicator: 'evil.example', severity: 8 });
    bus.emit('requestComplete', 12, 'feed_otx');
    expect(seen).toEqual([
      ['a', 'evil.example', 8],
      ['b', 12, 'feed_otx'],
    ]);
  });

  it('once fires a single time, and off removes on and once handlers', () => {
    const bus = new EventBus<ThreatEvents>(recordingLogger().logger);
    const once = vi.fn();
    const on = vi.fn();
    const removedOnce = vi.fn();
    bus.once('rateLimited', once);
    bus.on('rateLimited', on);
    bus.once('rateLimited', removedOnce);
    bus.off('rateLimited', removedOnce);
    bus.emit('rateLimited', 'feed_scan');
    bus.emit('rateLimited', 'feed_scan');
    expect(once).toHaveBeenCalledTimes(1);
    expect(on).toHaveBeenCalledTimes(2);
    expect(removedOnce).not.toHaveBeenCalled();
    bus.off('rateLimited', on);
    expect(bus.listenerCount('rateLimited')).toBe(0);
  });

  it('logs a throwing handler and still runs the others', () => {
    const { logger, errors } = recordingLogger();
    const bus = new EventBus<ThreatEvents>(logger);
    const after = vi.fn();
    bus.on('cacheEvicted', () => {
      throw new Error('handler bug');
    });
    bus.on('cacheEvicted', after);
    expect(() => bus.emit('cacheEvicted')).not.toThrow();
    expect(after).toHaveBeenCalledOnce();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj.event).toBe('cacheEvicted');
    expect(errors[0]?.obj.err).toMatchObject({ message: 'handler bug' });
  });

  it('logs a rejecting async handler without an unhandled rejection', async () => {
    const { logger, errors } = recordingLogger();
    const bus = new EventBus<ThreatEvents>(logger);
    bus.on('feedError', async (error, feed) => {
      await Promise.resolve();
      throw new Error(`could not record ${feed}: ${error.message}`);
    });
    bus.emit('feedError', { message: 'invalid key', context: { status: 401 } }, 'feed_otx');
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => (e.obj.err as Error).message)).toEqual(['could not record feed_otx: invalid key']);
    expect(unhandled).not.toHaveBeenCalled();
  });

  it('survives a logger that throws too', () => {
    const broken: Logger = {
      debug() {},
      info() {},
      warn() {},
      error() {
        throw new Error('logger down');
      },
    };
    const bus = new EventBus<ThreatEvents>(broken);
    bus.on('vaultLocked', () => {
      throw new Error('x');
    });
    expect(() => bus.emit('vaultLocked')).not.toThrow();
  });
});

describe('client events', () => {
  it('registers the handlers of the events config key, sync and async', async () => {
    const { logger, errors } = recordingLogger();
    const seen: string[] = [];
    const client = new ThreatClient(
      {
        sources: ['feed_urls'],
        events: {
          threatFound: (threat) => {
            seen.push(`threat ${threat.indicator} ${threat.severity}`);
          },
          vaultLocked: async () => {
            seen.push('locked');
            throw new Error('async handler failure');
          },
          rateLimited: (feed) => {
            seen.push(`limited ${feed}`);
          },
        },
      },
      { env: false, logger },
    );
    client.on('threatFound', (threat) => {
      seen.push(`on ${threat.indicator}`);
    });
    client.events.emit('threatFound', { indicator: '203.0.113.9', severity: 7 });
    client.events.emit('vaultLocked');
    client.events.emit('rateLimited', 'feed_scan');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['threat 203.0.113.9 7', 'on 203.0.113.9', 'locked', 'limited feed_scan']);
    expect(errors).toHaveLength(1);
  });
});
