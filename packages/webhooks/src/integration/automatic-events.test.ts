import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CampaignDetectedEvent,
  silentLogger,
  ThreatClient,
  type ThreatClientOptions,
  type ThreatConfig,
} from '@threatlib/core';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Receiver } from '../outgoing/receiver.test-suite.js';
import { ThreatUpdateOptionsSchema } from './threat-update.js';

/*
 * The automatic outgoing events of INTERFACE.md 6.2: with integrations.webhooks.outgoing configured, every threat the
 * client concludes with a confidence of 80 or more goes out as `high-confidence-threat` {indicator, confidence,
 * sources}, and every campaign the client's tracker reports as `campaign-detected`, with no code but the
 * configuration.
 */

const SECRET = `whsec_${Buffer.from('the outgoing secret of this test').toString('base64')}`;
/** Flagged by the three emulated feeds that know IP addresses; OTX's pulses name Mirai and Emotet. */
const THREATS = ['198.51.100.71', '198.51.100.72', '198.51.100.73'];

const application: ThreatClientOptions = {
  env: false,
  logger: silentLogger,
  loadIntegrationPackage: (name) => (name === '@threatlib/webhooks' ? import('../index.js') : import(name)),
};

let feeds: FeedEmulator;
let receiver: Receiver;
let dir: string;
const clients: ThreatClient[] = [];

beforeAll(async () => {
  feeds = await startFeedEmulator();
  for (const ip of THREATS) feeds.script(ip, { behaviour: 'malicious', feeds: ['feed_otx', 'feed_abuse', 'feed_cti'] });
});
beforeEach(async () => {
  receiver = await new Receiver().listen();
  dir = await mkdtemp(join(tmpdir(), 'threatlib-automatic-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await feeds.close();
});

function client(webhooks: Record<string, unknown>): ThreatClient {
  const key = (feed: 'feed_otx' | 'feed_abuse' | 'feed_cti') => ({
    key: `${feed}-test-key-0123456789`,
    endpoint: feeds.endpoints[feed],
    timeout: 5000,
  });
  const made = new ThreatClient(
    {
      sources: ['feed_otx', 'feed_abuse', 'feed_cti'],
      apiKeys: { feed_otx: key('feed_otx'), feed_abuse: key('feed_abuse'), feed_cti: key('feed_cti') },
      security: { enforceHttps: false },
      performance: { retryAttempts: 0 },
      integrations: {
        webhooks: {
          outgoing: [
            {
              name: 'soc',
              url: receiver.url(),
              events: ['high-confidence-threat', 'campaign-detected'],
              secret: SECRET,
            },
          ],
          delivery: { allowPrivateNetworks: ['127.0.0.1'], outbox: { directory: dir } },
          ...webhooks,
        },
      },
    } as ThreatConfig,
    application,
  );
  clients.push(made);
  return made;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function payloads(type: string): Array<{ type: string; timestamp: string; data: Record<string, unknown> }> {
  const verifier = new Webhook(SECRET);
  return receiver.requests
    .map(
      (request) => verifier.verify(request.body, request.headers) as { type: string; timestamp: string; data: never },
    )
    .filter((payload) => payload.type === type);
}

describe('automatic outgoing events', () => {
  it('sends high-confidence-threat for each concluded threat, and campaign-detected when three share a malware family', async () => {
    const threatlib = client({});
    const campaigns: CampaignDetectedEvent[] = [];
    threatlib.on('campaignDetected', (campaign) => campaigns.push(campaign));
    await threatlib.start();

    const confidences: number[] = [];
    for (const ip of THREATS) confidences.push((await threatlib.correlate(ip)).confidence);
    await threatlib.alerts.settled();
    await until(() => payloads('high-confidence-threat').length === 3 && payloads('campaign-detected').length > 0);

    expect(confidences.every((confidence) => confidence >= 80)).toBe(true);
    const threats = payloads('high-confidence-threat').map((payload) => payload.data);
    expect(threats.map((data) => data.indicator).sort()).toEqual(THREATS);
    for (const data of threats) {
      expect(Object.keys(data).sort()).toEqual(['confidence', 'indicator', 'sources']);
      expect(data.confidence).toBeGreaterThanOrEqual(80);
      expect([...(data.sources as string[])].sort()).toEqual(['feed_abuse', 'feed_cti', 'feed_otx']);
    }

    const mirai = campaigns.find(
      (campaign) => campaign.sharedBy.kind === 'malwareFamily' && campaign.sharedBy.value === 'Mirai',
    );
    expect(mirai).toMatchObject({ status: 'formed', indicators: THREATS, indicatorCount: 3 });
    await until(() => payloads('campaign-detected').length === campaigns.length);
    const sent = payloads('campaign-detected').find((payload) => payload.data.campaign === mirai?.campaign);
    expect(sent?.data).toEqual(mirai);
    expect(sent?.data).toMatchObject({
      indicators: THREATS,
      sharedBy: { kind: 'malwareFamily', value: 'Mirai' },
      firstSeen: expect.any(String),
      lastSeen: expect.any(String),
      sources: expect.arrayContaining(['feed_otx']),
    });
    // Each alert's delivery to the webhooks is recorded like any integration's.
    const alerts = (await threatlib.alerts.list()).items;
    expect(alerts.flatMap((alert) => alert.deliveries.map((delivery) => delivery.status))).toEqual([
      'delivered',
      'delivered',
      'delivered',
    ]);
  });

  it('refuses a minConfidence given as a 0..1 score, saying what it would be on the 0..100 scale', async () => {
    const threatlib = client({ automaticEvents: { highConfidenceThreat: { minConfidence: 0.8 } } });
    await expect(threatlib.start()).rejects.toThrow(
      /automaticEvents\.highConfidenceThreat\.minConfidence: minConfidence is 0\.\.100; got 0\.8 \(did you mean 80\?\)/,
    );
    expect(receiver.requests).toEqual([]);
    expect(
      ThreatUpdateOptionsSchema.safeParse({ minConfidence: 0.8 }).error?.issues.map((issue) => issue.message),
    ).toEqual(['minConfidence is 0..100; got 0.8 (did you mean 80?)']);
  });

  it('sends nothing automatic below the threshold or when switched off', async () => {
    const threatlib = client({
      automaticEvents: { highConfidenceThreat: { minConfidence: 100 }, campaignDetected: { enabled: false } },
    });
    const campaigns: CampaignDetectedEvent[] = [];
    threatlib.on('campaignDetected', (campaign) => campaigns.push(campaign));
    await threatlib.start();
    for (const ip of THREATS) await threatlib.correlate(ip);
    await threatlib.alerts.settled();
    expect(campaigns.length).toBeGreaterThan(0);
    expect(receiver.requests).toEqual([]);
    expect(receiver.connections).toBe(0);
  });
});
