import {
  type Alert,
  ConfigurationError,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { INTEGRATION_PACKAGES, type Integration } from '@threatlib/core/integration';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import * as siemPackage from '@threatlib/siem';
import { type RunningSiemEmulator, SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhooksIntegration } from './webhooks-integration.js';

/*
 * The documented threat-update flow (INTERFACE.md 6.2), built in: a client configured with
 * integrations.webhooks.incoming verifies a signed threat-update, correlates its indicator, and raises an alert
 * through the client when the confidence is above 80, so it reaches every integration (a SIEM included) with no
 * code but the configuration.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Flagged by three of the emulated feeds (those that know IP addresses), and unknown to the others. */
const MALICIOUS = '198.51.100.66';
const CLEAN = '198.51.100.67';

/**
 * What an application with `@threatlib/webhooks` and `@threatlib/siem` installed gives the client: nothing but the
 * packages (here loaded from this source). `@threatlib/siem` is imported with this file rather than by the client's
 * start: vitest transforms the package on its first import, 2.5 s of one idle core, which counted against the SIEM
 * test's 5 s. The clock is the real one, and the emulated feeds date their evidence by it.
 */
const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: async (name) => {
    if (name === '@threatlib/webhooks') return import('../index.js');
    if (name === '@threatlib/siem') return siemPackage;
    return import(name);
  },
};

let feeds: FeedEmulator;
let siem: RunningSiemEmulator | undefined;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  feeds = await startFeedEmulator();
  feeds.script(MALICIOUS, { behaviour: 'malicious', feeds: ['feed_otx', 'feed_abuse', 'feed_cti'] });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  await siem?.close();
  siem = undefined;
});
afterAll(async () => {
  await feeds.close();
});

/**
 * The configuration of the feeds (on the emulator, which speaks plain HTTP), the integrations given, and nothing
 * else: every other option at its default.
 */
function config(integrations: ThreatConfig['integrations'], extra: Partial<ThreatConfig> = {}): ThreatConfig {
  const key = (feed: 'feed_otx' | 'feed_abuse' | 'feed_cti') => ({
    key: `${feed}-test-key-0123456789`,
    endpoint: feeds.endpoints[feed],
  });
  return {
    sources: ['feed_otx', 'feed_abuse', 'feed_cti'],
    apiKeys: { feed_otx: key('feed_otx'), feed_abuse: key('feed_abuse'), feed_cti: key('feed_cti') },
    security: { enforceHttps: false },
    integrations,
    ...extra,
  } as ThreatConfig;
}

const incoming = (extra: Record<string, unknown> = {}) => ({
  server: { port: 0, path: '/webhooks' },
  authentication: { type: 'hmac', secret: SECRET },
  ...extra,
});

function client(threatConfig: ThreatConfig): ThreatClient {
  const made = new ThreatClient(threatConfig, application);
  clients.push(made);
  return made;
}

/** Posts a threat-update signed by the Standard Webhooks reference library to the client's webhook server. */
async function sendThreatUpdate(threatClient: ThreatClient, indicator: string, id = `msg_${indicator}`) {
  const address = threatClient.integration('webhooks')?.manager.address;
  if (!address) throw new Error('the webhook server is not listening');
  const body = JSON.stringify({ type: 'threat-update', timestamp: new Date().toISOString(), data: { indicator } });
  return fetch(`${address}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(id, new Date(), body),
    },
    body,
  });
}

/** How many feed requests named the indicator. */
const asked = (indicator: string) => feeds.requests.filter((request) => request.indicator === indicator).length;

class Recorder implements Integration {
  static received: Alert[] = [];
  sendAlert = async (alert: Alert) => {
    Recorder.received.push(alert);
    return { recorded: alert.id };
  };
  enrichIndicator = async () => undefined;
}

describe('@threatlib/webhooks as the package core builds integrations.webhooks from', () => {
  it("exports the factory core's table names for webhooks", async () => {
    const entry = (await import('../index.js')) as Record<string, unknown>;
    expect(INTEGRATION_PACKAGES.webhooks.package).toBe('@threatlib/webhooks');
    expect(typeof entry[INTEGRATION_PACKAGES.webhooks.factory]).toBe('function');
  });

  it('refuses options it cannot use, naming them under integrations.webhooks', async () => {
    const bad = client(config({ webhooks: { incoming: { server: { port: 0 } } } }));
    const error = await bad.start().catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('integrations.webhooks.incoming.authentication:');
    const both = client(config({ webhooks: { incoming: incoming({ port: 0 }) } }));
    expect(((await both.start().catch((e: unknown) => e)) as Error).message).toContain(
      'integrations.webhooks.incoming.port: unknown field',
    );
    const unknown = client(config({ webhooks: { incoming: incoming({ threatUpdate: { minConfidense: 50 } }) } }));
    expect(((await unknown.start().catch((e: unknown) => e)) as Error).message).toContain(
      'integrations.webhooks.incoming.threatUpdate.minConfidense: unknown field',
    );
  });

  it('takes server.pathEvents flat in incoming too: a bare threat-update on its bound path is correlated', async () => {
    const flat = {
      port: 0,
      path: '/webhooks',
      pathEvents: { intel: 'threat-update' },
      authentication: { type: 'hmac', secret: SECRET },
    };
    const threatClient = client(config({ webhooks: { incoming: flat } }, { alerting: { enabled: false } }));
    await threatClient.start();
    const address = threatClient.integration('webhooks')?.manager.address;
    const indicator = '198.51.100.68';
    const body = JSON.stringify({ indicator });
    const id = 'msg_path_events';
    const response = await fetch(`${address}/webhooks/intel`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, new Date(), body),
      },
      body,
    });
    expect(response.status).toBe(204);
    expect(asked(indicator)).toBe(3);
  });
});

describe('the built-in threat-update flow', () => {
  it('a threat-update for an indicator three feeds call malicious raises an alert that reaches a registered integration', async () => {
    Recorder.received = [];
    // The server options may be written flat in `incoming`, as well as under `server` like the constructor takes them.
    const flat = { port: 0, path: '/webhooks', authentication: { type: 'hmac', secret: SECRET } };
    const threatClient = client(config({ webhooks: { incoming: flat } }, { alerting: { enabled: false } }));
    threatClient.registerIntegration('recorder', Recorder);
    await threatClient.start();
    expect(threatClient.integration('webhooks')).toBeInstanceOf(WebhooksIntegration);

    const response = await sendThreatUpdate(threatClient, MALICIOUS);
    expect(response.status).toBe(204);
    await threatClient.alerts.settled();

    expect(Recorder.received).toHaveLength(1);
    const [alert] = Recorder.received as [Alert];
    expect(alert).toMatchObject({
      title: 'Threat update',
      indicators: [expect.objectContaining({ type: 'ipv4', value: MALICIOUS })],
    });
    expect(alert.indicators[0]?.confidence).toBeGreaterThan(80);
    expect(alert.indicators[0]?.sources).toEqual(expect.arrayContaining(['feed_otx', 'feed_abuse', 'feed_cti']));
    // Each feed was asked once: the alert came from the correlation the webhook caused.
    expect(asked(MALICIOUS)).toBe(3);
    const { items } = await threatClient.alerts.list();
    expect(items.map((a) => a.id)).toEqual([alert.id]);
  });

  it('raises nothing for a clean indicator or under the configured minConfidence; a replay runs nothing again', async () => {
    Recorder.received = [];
    feeds.resetCounters();
    const threatClient = client(
      config(
        { webhooks: { incoming: incoming({ threatUpdate: { minConfidence: 100 } }) } },
        { alerting: { enabled: false } },
      ),
    );
    threatClient.registerIntegration('recorder', Recorder);
    await threatClient.start();
    expect((await sendThreatUpdate(threatClient, CLEAN)).status).toBe(204);
    expect((await sendThreatUpdate(threatClient, MALICIOUS)).status).toBe(204);
    expect((await sendThreatUpdate(threatClient, MALICIOUS)).status).toBe(204);
    await threatClient.alerts.settled();
    expect(Recorder.received).toHaveLength(0);
    expect(asked(MALICIOUS)).toBe(3);
    // The replay was answered without running the flow (the client's cache would hide a second correlation).
    expect(threatClient.integration('webhooks')?.manager.stats).toMatchObject({ handled: 2, replayed: 1 });
  });

  it('answers 400 to a threat-update without an indicator, or with one that is not', async () => {
    const threatClient = client(config({ webhooks: { incoming: incoming() } }));
    await threatClient.start();
    const address = threatClient.integration('webhooks')?.manager.address as string;
    const post = async (data: unknown, id: string) => {
      const body = JSON.stringify({ type: 'threat-update', timestamp: new Date().toISOString(), data });
      const response = await fetch(`${address}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': new Webhook(SECRET).sign(id, new Date(), body),
        },
        body,
      });
      return { status: response.status, detail: ((await response.json()) as { detail: string }).detail };
    };
    expect(await post({}, 'msg_a')).toEqual({
      status: 400,
      detail: expect.stringContaining('indicator: required: the indicator (a string)'),
    });
    expect((await post({ indicator: 'not an indicator at all' }, 'msg_b')).status).toBe(400);
    expect((await post({ indicator: 'evil.example', type: 'ipv5' }, 'msg_c')).detail).toContain(
      'type: not an indicator type',
    );
  });

  it('raises one alert, not two, when the client’s own alerting already raised one for the threat concluded', async () => {
    Recorder.received = [];
    const threatClient = client(config({ webhooks: { incoming: incoming() } }));
    threatClient.registerIntegration('recorder', Recorder);
    await threatClient.start();
    expect((await sendThreatUpdate(threatClient, MALICIOUS, 'msg_once')).status).toBe(204);
    await threatClient.alerts.settled();
    expect(Recorder.received).toHaveLength(1);
    expect(Recorder.received[0]?.indicators).toEqual([expect.objectContaining({ value: MALICIOUS })]);
  });

  it('with integrations.siem (siem_a on the SIEM emulator) the alert reaches the SIEM, with only configuration', async () => {
    siem = await startSiemEmulator();
    // Every option at its default but the feeds' and the two integrations': the client's own alerting is on too, and
    // the threat-update's alert is the one it raised.
    const threatClient = client(
      config({
        siem: {
          platform: 'siem_a',
          host: siem.host,
          port: siem.port,
          credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
          hec: { token: SPLUNK_DEFAULTS.hecToken, port: siem.port },
          tls: { ca: TEST_CA },
        },
        webhooks: { incoming: incoming() },
      }),
    );
    await threatClient.start();
    expect((await sendThreatUpdate(threatClient, MALICIOUS, 'msg_siem')).status).toBe(204);
    await threatClient.alerts.settled();

    const delivered = siem.splunk.events.filter((e) => e.sourcetype === 'threatlib:alert');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.event).toMatchObject({
      kind: 'threatlib:alert',
      indicators: [expect.objectContaining({ value: MALICIOUS, confidence: expect.any(Number) })],
    });
    const event = delivered[0]?.event as { indicators: Array<{ confidence: number; sources: string[] }> } | undefined;
    const [indicator] = event?.indicators ?? [];
    expect(indicator?.confidence).toBeGreaterThan(80);
    expect(indicator?.sources).toEqual(expect.arrayContaining(['feed_otx', 'feed_abuse', 'feed_cti']));
    const { items } = await threatClient.alerts.list();
    expect(items[0]?.deliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          integration: 'siem',
          status: 'delivered',
          result: { platform: 'siem_a', accepted: 1 },
        }),
      ]),
    );
  });
});
