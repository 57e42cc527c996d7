import { ClientSecretCredential } from '@azure/identity';
import { type RunningSentinelEmulator, startSentinelEmulator } from '@threatlib/cloud-emulator';
import { ConfigurationError, parseIndicator, toStixPattern, ValidationError } from '@threatlib/core';
import { ManualClock } from '@threatlib/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CloudError } from '../errors/cloud-error.js';
import { CloudSiemIntegration } from './cloud-siem-integration.js';
import type { CloudSiemIntegrationOptions } from './sentinel-options.js';

let emulator: RunningSentinelEmulator;
const made: CloudSiemIntegration[] = [];

beforeAll(async () => {
  emulator = await startSentinelEmulator();
});
afterEach(async () => {
  await Promise.all(made.splice(0).map((s) => s.stop()));
  emulator.reset();
});
afterAll(() => emulator.close());

function credential(secret = emulator.sentinel.config.clientSecret): ClientSecretCredential {
  const { tenantId, clientId } = emulator.sentinel.config;
  return new ClientSecretCredential(tenantId, clientId, secret, {
    authorityHost: emulator.url,
    disableInstanceDiscovery: true,
  });
}

/** The documented options, pointed at the emulator. */
function sentinel(extra: Partial<CloudSiemIntegrationOptions> = {}, clock?: ManualClock): CloudSiemIntegration {
  const { subscriptionId, resourceGroup, workspaceName } = emulator.sentinel.config;
  const s = new CloudSiemIntegration(
    {
      subscriptionId,
      resourceGroupName: resourceGroup,
      workspaceName,
      credentials: credential(),
      endpoints: { threatIntelligence: emulator.url, resourceManager: emulator.url },
      ...extra,
    },
    clock ? { clock } : {},
  );
  made.push(s);
  return s;
}

const uploads = () => emulator.requests.filter((r) => r.path.endsWith('threat-intelligence-stix-objects:upload'));
const ip = (n: number) => ({
  pattern: `[ipv4-addr:value = '198.51.100.${n % 256}']`,
  labels: [`n${n}`],
  confidence: 70,
});

describe('CloudSiemIntegration through the STIX objects upload API', () => {
  it('runs the createIndicator example as written: a STIX 2.1 indicator in the workspace, for an ARM token', async () => {
    const s = sentinel();
    const created = await s.createIndicator({
      pattern: "[ipv4-addr:value = '192.168.1.100']",
      labels: ['malicious-activity'],
      confidence: 85,
      threatTypes: ['malware'],
    });

    expect(created).toEqual({ id: expect.stringMatching(/^indicator--[0-9a-f-]{36}$/), api: 'stix' });
    const stored = emulator.sentinel.objects.get(created.id);
    expect(stored?.sourcesystem).toBe('threatlib');
    expect(stored?.object).toMatchObject({
      type: 'indicator',
      spec_version: '2.1',
      pattern: "[ipv4-addr:value = '192.168.1.100']",
      pattern_type: 'stix',
      labels: ['malicious-activity'],
      confidence: 85,
      indicator_types: ['malware'],
      name: '192.168.1.100',
    });
    // The workspace GUID was read from ARM once, and every token was for ARM's audience.
    expect(emulator.requests.filter((r) => r.path.includes('/workspaces/law-sentinel')).map((r) => r.method)).toEqual([
      'GET',
    ]);
    expect(new Set(emulator.sentinel.authority.issued.map((t) => t.audience))).toEqual(
      new Set(['https://management.azure.com/']),
    );
  });

  it('refuses a 0..1 confidence (it was rounded to 1) before anything is sent; 45.5 is rounded to 46', async () => {
    const s = sentinel();
    await expect(s.createIndicator({ ...ip(1), confidence: 0.85 })).rejects.toThrow(
      'Invalid Sentinel indicator: confidence: confidence is 0..100; got 0.85 (did you mean 85?)',
    );
    expect(uploads()).toEqual([]);
    const created = await s.createIndicator({ ...ip(2), confidence: 45.5 });
    expect(emulator.sentinel.objects.get(created.id)?.object.confidence).toBe(46);
    expect(() => sentinel({ minConfidence: 0.8 })).toThrow(
      'Configuration invalid: minConfidence: minConfidence is 0..100; got 0.8 (did you mean 80?)',
    );
  });

  it('gives the same pattern the same id, so publishing it again updates the indicator', async () => {
    const s = sentinel({ workspaceId: emulator.sentinel.config.workspaceId });
    const first = await s.createIndicator(ip(1));
    const again = await s.createIndicator({ ...ip(1), confidence: 95 });
    expect(again.id).toBe(first.id);
    expect(emulator.sentinel.objects.size).toBe(1);
    expect(emulator.sentinel.objects.get(first.id)?.object.confidence).toBe(95);
  });

  it("reports a record Sentinel refused with Sentinel's reason, and creates the others", async () => {
    const s = sentinel();
    const results = await s.createIndicators([
      ip(1),
      { pattern: "[ipv4-addr:value = '198.51.100.2]", labels: [], confidence: 60, threatTypes: [] },
      ip(3),
      { ...ip(4), confidence: 150 },
    ]);

    expect(results.map((r) => r.ok)).toEqual([true, false, true, false]);
    const refused = results[1] as Extract<(typeof results)[number], { ok: false }>;
    expect(CloudError.isInstance(refused.error)).toBe(true);
    expect(refused.error.message).toMatch(
      /^Sentinel refused STIX object indicator--\S+ \(record 1 of the upload\): Error for Property=pattern: The STIX pattern is invalid: unterminated string/,
    );
    const invalid = results[3] as Extract<(typeof results)[number], { ok: false }>;
    expect(ValidationError.isInstance(invalid.error)).toBe(true);
    expect(invalid.error.message).toBe('Invalid Sentinel indicator: confidence: confidence is 0..100; got 150');
    expect([...emulator.sentinel.objects.values()].map((o) => o.object.pattern)).toEqual([
      "[ipv4-addr:value = '198.51.100.1']",
      "[ipv4-addr:value = '198.51.100.3']",
    ]);
    // The invalid input never left the process: one request with three records.
    expect(emulator.sentinel.uploads.map((u) => u.objects)).toEqual([3]);
    await expect(s.createIndicator({ ...ip(5), pattern: '[ipv4-addr:value =' })).rejects.toThrow(
      /Sentinel refused STIX object .*Error for Property=pattern/,
    );
  });

  it("takes core's patterns of every indicator type, hostile values too, and names each by its value", async () => {
    const s = sentinel();
    const values = [
      parseIndicator('198.51.100.9', 'ipv4'),
      parseIndicator('2001:DB8::9', 'ipv6'),
      parseIndicator('Bücher.de', 'domain'),
      parseIndicator("http://evil.com/it's\\here?q=']&x=\u00e9", 'url'),
      parseIndicator("o'brien+x@evil.com", 'email'),
      parseIndicator('d41d8cd98f00b204e9800998ecf8427e', 'md5'),
      parseIndicator('da39a3ee5e6b4b0d3255bfef95601890afd80709', 'sha1'),
      parseIndicator('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256'),
    ];
    const results = await s.createIndicators(
      values.map((v) => ({ pattern: toStixPattern(v), labels: ["it's", 'a\\b'], confidence: 50, threatTypes: [] })),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const stored = [...emulator.sentinel.objects.values()].map((o) => o.object);
    expect(stored.map((o) => o.name)).toEqual(values.map((v) => v.value));
    expect(stored.map((o) => o.pattern)).toEqual(values.map((v) => toStixPattern(v)));
  });

  it('sends at most 100 objects per request', async () => {
    const s = sentinel();
    const results = await s.createIndicators(Array.from({ length: 250 }, (_, n) => ip(n)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(emulator.sentinel.uploads.map((u) => u.objects).sort()).toEqual([100, 100, 50]);
    expect(emulator.sentinel.objects.size).toBe(250);
  });

  it('waits out a 429 for as long as its Retry-After says, then sends the request again', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const s = sentinel({ workspaceId: emulator.sentinel.config.workspaceId }, clock);
    emulator.sentinel.throttleNext(1, 30);
    let settled = false;
    const created = s.createIndicator(ip(7)).finally(() => {
      settled = true;
    });

    await vi.waitFor(() => expect(uploads().map((r) => r.status)).toEqual([429]));
    await clock.advance(29_000);
    expect(uploads()).toHaveLength(1);
    expect(settled).toBe(false);
    await clock.advance(1_000);
    await vi.waitFor(() => expect(uploads().map((r) => r.status)).toEqual([429, 200]));
    await expect(created).resolves.toMatchObject({ api: 'stix' });
    expect(emulator.sentinel.objects.size).toBe(1);
  });

  it('gives up after maxThrottleRetries 429s with a retryable CloudError', async () => {
    const s = sentinel({ workspaceId: emulator.sentinel.config.workspaceId, maxThrottleRetries: 0 });
    emulator.sentinel.throttleNext(1, 1);
    const error = await s.createIndicator(ip(8)).catch((e: unknown) => e);
    expect(CloudError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 429, isRetryable: true, service: 'sentinel' });
    expect((error as Error).message).toContain('Rate limit is exceeded. Try again in 1 seconds.');
  });

  it('keeps to requestsPerMinute on its own, so Sentinel does not have to refuse', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const s = sentinel({ workspaceId: emulator.sentinel.config.workspaceId, requestsPerMinute: 2 }, clock);
    const all = s.createIndicators(Array.from({ length: 300 }, (_, n) => ip(n)));

    await vi.waitFor(() => expect(emulator.sentinel.uploads).toHaveLength(2));
    await clock.advance(59_000);
    expect(emulator.sentinel.uploads).toHaveLength(2);
    await clock.advance(2_000);
    await vi.waitFor(() => expect(emulator.sentinel.uploads).toHaveLength(3));
    expect((await all).every((r) => r.ok)).toBe(true);
    expect(uploads().every((r) => r.status === 200)).toBe(true);
  });
});

describe('CloudSiemIntegration through the legacy indicator API', () => {
  it("creates the indicator with @azure/arm-securityinsight's createIndicator", async () => {
    const s = sentinel({ api: 'legacy' });
    const created = await s.createIndicator({
      pattern: "[domain-name:value = 'evil.example']",
      labels: ['phishing'],
      confidence: 85,
      threatTypes: ['malicious-activity'],
    });

    expect(created.api).toBe('legacy');
    const stored = emulator.sentinel.legacyIndicators.get(created.id.toLowerCase());
    expect(stored?.properties).toMatchObject({
      pattern: "[domain-name:value = 'evil.example']",
      patternType: 'stix',
      source: 'threatlib',
      displayName: 'evil.example',
      confidence: 85,
      labels: ['phishing'],
      threatTypes: ['malicious-activity'],
      validFrom: expect.any(String),
    });
    const call = emulator.requests.find((r) => r.path.endsWith('/threatIntelligence/main/createIndicator'));
    expect(call?.query.get('api-version')).toBe('2024-03-01');
    expect(emulator.sentinel.objects.size).toBe(0);
  });

  it('reports what the legacy API refused, per indicator', async () => {
    const s = sentinel({ api: 'legacy' });
    const results = await s.createIndicators([ip(1), { ...ip(2), pattern: "[ipv4-addr:value = 'x'" }]);
    expect(results[0]?.ok).toBe(true);
    const refused = results[1] as Extract<(typeof results)[number], { ok: false }>;
    expect(refused.error.message).toMatch(
      /^Sentinel threat-intelligence CreateIndicator \(legacy API\) failed: BadRequest \(HTTP 400\): The STIX pattern is invalid/,
    );
    expect(emulator.sentinel.legacyIndicators.size).toBe(1);
  });

  it('waits out a 429 from Azure Resource Manager', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const s = sentinel({ api: 'legacy' }, clock);
    emulator.sentinel.throttleNext(1, 5, 'legacy');
    const created = s.createIndicator(ip(3));
    const legacyCalls = () => emulator.requests.filter((r) => r.path.endsWith('/createIndicator'));
    await vi.waitFor(() => expect(legacyCalls().map((r) => r.status)).toEqual([429]));
    await clock.advance(5_000);
    await vi.waitFor(() => expect(legacyCalls().map((r) => r.status)).toEqual([429, 201]));
    await expect(created).resolves.toMatchObject({ api: 'legacy' });
  });
});

describe('CloudSiemIntegration failures', () => {
  it("says Entra ID refused a wrong client secret, with Entra's reason and without the secret", async () => {
    const wrong = 'wr0ng~secret~value~that~must~not~leak';
    const s = sentinel({ credentials: credential(wrong) });
    const error = await s.createIndicator(ip(1)).catch((e: unknown) => e);

    expect(CloudError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      service: 'entra',
      operation: 'GetToken',
      serviceCode: 'AADSTS7000215',
      isRetryable: false,
    });
    expect((error as Error).message).toMatch(
      /^Log Analytics workspace read \(for the workspace id\) failed: Entra ID refused the token request: AADSTS7000215: Invalid client secret provided\./,
    );
    expect(JSON.stringify({ message: (error as Error).message, error })).not.toContain(wrong);
    expect(emulator.sentinel.objects.size).toBe(0);
  });

  it('builds the ClientSecretCredential from {tenantId, clientId, clientSecret} and keeps that secret out of errors', async () => {
    const { tenantId, clientId } = emulator.sentinel.config;
    const wrong = 'an0ther~wrong~secret~1234';
    const good = sentinel({
      workspaceId: emulator.sentinel.config.workspaceId,
      credentials: {
        tenantId,
        clientId,
        clientSecret: emulator.sentinel.config.clientSecret,
        authorityHost: emulator.url,
      },
    });
    await expect(good.createIndicator(ip(1))).resolves.toMatchObject({ api: 'stix' });
    const bad = sentinel({
      workspaceId: emulator.sentinel.config.workspaceId,
      credentials: { tenantId, clientId, clientSecret: wrong, authorityHost: emulator.url },
    });
    const error = (await bad.createIndicator(ip(2)).catch((e: unknown) => e)) as CloudError;
    expect(error.message).toContain('AADSTS7000215');
    expect(error.message).not.toContain(wrong);
  });

  it('names the workspace the upload API does not know', async () => {
    const s = sentinel({ workspaceId: '00000000-0000-4000-8000-000000000000' });
    await expect(s.createIndicator(ip(1))).rejects.toThrow(
      "Sentinel threat-intelligence upload (threat-intelligence-stix-objects:upload) failed: (HTTP 404): Workspace '00000000-0000-4000-8000-000000000000' was not found.",
    );
  });

  it('refuses options that cannot work, naming each', () => {
    expect(
      () =>
        new CloudSiemIntegration(
          {
            subscriptionId: 'not-a-guid',
            resourceGroupName: 'rg',
            workspaceName: 'ws',
            credentials: {
              tenantId: 'x',
              clientId: '5535a0e8-f392-4962-a240-6e1f0a5b1c2d',
              clientSecret: 's3cr3t~value',
            },
            endpoints: { threatIntelligence: 'http://127.0.0.1:1' },
          } as CloudSiemIntegrationOptions,
          { optionsPath: 'integrations.cloudSiem' },
        ),
    ).toThrow(
      new ConfigurationError([
        {
          path: 'integrations.cloudSiem.subscriptionId',
          message: 'expected the subscription id as a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)',
        },
        {
          path: 'integrations.cloudSiem.credentials.tenantId',
          message: 'expected the tenant id as a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)',
        },
        {
          path: 'integrations.cloudSiem.endpoints.threatIntelligence',
          message: 'expected the threat intelligence endpoint as an https URL',
        },
      ]),
    );
    expect(() => new CloudSiemIntegration({ credentials: 'secret' } as never)).toThrow(
      /credentials: expected an @azure\/identity credential/,
    );
  });
});
