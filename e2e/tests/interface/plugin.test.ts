// The plugin mechanism of ../shared/INTERFACE.md (section 4.2, `registerIntegration(name, Class)`), with the example
// class the document describes: it posts the alert as JSON to `<endpoint>/alerts` with a bearer token and returns
// the parsed JSON. Users write such a class with methods or with arrow-function fields; both are registered as
// written. The receiver is a local HTTP server standing in for the user's endpoint.
import { type AlertInput, ThreatClient } from '@threatlib/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatedFeeds, type Receiver, startEmulatedFeeds, startReceiver } from './support.js';

interface CustomIntegrationConfig {
  endpoint: string;
  apiKey: string;
}

/** The documented example class, written with methods. */
class CustomSIEMIntegration {
  readonly endpoint: string;
  readonly apiKey: string;

  constructor(config: CustomIntegrationConfig) {
    this.endpoint = config.endpoint;
    this.apiKey = config.apiKey;
  }

  async sendAlert(alert: unknown) {
    const response = await fetch(`${this.endpoint}/alerts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify(alert),
    });
    return response.json();
  }

  async enrichIndicator(indicator: { type: string; value: string }) {
    const response = await fetch(`${this.endpoint}/indicators/${encodeURIComponent(indicator.value)}`, {
      headers: { Authorization: `Bearer ${this.apiKey}` },
    });
    return response.json();
  }
}

/** The same class with its methods as arrow-function fields. */
class CustomSIEMIntegrationWithFields {
  constructor(private readonly config: CustomIntegrationConfig) {}

  sendAlert = async (alert: unknown) => {
    const response = await fetch(`${this.config.endpoint}/alerts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.config.apiKey}` },
      body: JSON.stringify(alert),
    });
    return response.json();
  };

  enrichIndicator = async (indicator: { type: string; value: string }) => {
    const response = await fetch(`${this.config.endpoint}/indicators/${encodeURIComponent(indicator.value)}`, {
      headers: { Authorization: `Bearer ${this.config.apiKey}` },
    });
    return response.json();
  };
}

/** The alert of section 2.1. */
const documentedAlert = (): AlertInput => ({
  title: 'Malicious domain detected',
  severity: 'high',
  description: 'Domain flagged by threat intelligence',
  indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
  timestamp: new Date().toISOString(),
});

let feeds: EmulatedFeeds;
let receiver: Receiver;
let trojan: ThreatClient | undefined;

beforeAll(async () => {
  feeds = await startEmulatedFeeds();
  feeds.emulator.script('198.51.100.23', 'malicious');
  receiver = await startReceiver();
});

afterEach(async () => {
  await trojan?.stop();
  trojan = undefined;
  receiver.requests.length = 0;
});

afterAll(async () => {
  await receiver?.close();
  await feeds?.emulator.close();
});

describe.each([
  ['methods', (trojan: ThreatClient) => trojan.registerIntegration('customSiem', CustomSIEMIntegration)],
  [
    'arrow-function fields',
    (trojan: ThreatClient) => trojan.registerIntegration('customSiem', CustomSIEMIntegrationWithFields),
  ],
])('4.2 registerIntegration(name, Class) with a class written with %s', (_form, register) => {
  const make = () =>
    new ThreatClient({
      sources: ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'],
      strategy: 'custom',
      thresholds: { confidence: 0.2, consensus: 3, riskScore: 5 },
      apiKeys: feeds.apiKeys,
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: { customSiem: { endpoint: receiver.url, apiKey: 'custom-siem-token' } },
    });

  it('posts an alert as JSON to <endpoint>/alerts with a bearer token and returns the parsed JSON', async () => {
    trojan = make();
    const plugin = register(trojan);
    await trojan.start();
    expect(trojan.integration('customSiem')).toBe(plugin);

    const answer = await plugin.sendAlert(documentedAlert());
    expect(answer).toEqual({ received: true, id: 'rcv-1' });
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/alerts' });
    expect(request?.headers.authorization).toBe('Bearer custom-siem-token');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      title: 'Malicious domain detected',
      severity: 'high',
      indicators: [{ value: 'malicious-site.com', confidence: 95 }],
    });

    expect(await plugin.enrichIndicator({ type: 'ip', value: '198.51.100.23' })).toEqual({
      received: true,
      id: 'rcv-2',
    });
    expect(receiver.requests[1]).toMatchObject({ method: 'GET', url: '/indicators/198.51.100.23' });
  });

  it('receives the alert for a threat the client concludes, with no call of its own', async () => {
    trojan = make();
    register(trojan);
    await trojan.start();

    const correlation = await trojan.correlate('198.51.100.23');
    expect(correlation.isThreat).toBe(true);
    await receiver.until(
      (requests) => requests.some((r) => r.url === '/alerts' && r.body.includes('198.51.100.23')),
      'the concluded threat to reach the plugin',
      10_000,
    );
    const alert = JSON.parse(receiver.requests.find((r) => r.url === '/alerts')?.body ?? '');
    expect(alert).toMatchObject({ indicators: [expect.objectContaining({ value: '198.51.100.23' })] });
  }, 15_000);

  it('receives an alert added to the client', async () => {
    trojan = make();
    register(trojan);
    await trojan.start();

    await trojan.alerts.add(documentedAlert());
    await receiver.until(
      (requests) => requests.some((r) => r.url === '/alerts' && r.body.includes('malicious-site.com')),
      'the added alert to reach the plugin',
      10_000,
    );
  }, 15_000);
});
