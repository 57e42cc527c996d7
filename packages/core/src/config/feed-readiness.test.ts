import { describe, expect, it } from 'vitest';
import { feedReadiness, redactConfig } from './feed-readiness.js';
import { parseConfig } from './parse-config.js';

describe('an apiKeys entry without its key (settings for a key kept in a vault or the environment)', () => {
  const config = parseConfig({
    sources: ['feed_otx', 'feed_urls'],
    apiKeys: { feed_otx: { endpoint: 'https://otx.mirror.example' }, feed_urls: { timeout: 5000 } },
  });

  it('is valid configuration, but a feed that needs a key is not ready with it alone', () => {
    expect(feedReadiness(config).map((r) => [r.feed, r.status, r.reason])).toEqual([
      ['feed_otx', 'not_configured', 'needs an API key (apiKeys or its environment variable)'],
      ['feed_urls', 'ready', 'no key needed'],
    ]);
  });

  it('is printed without inventing a redacted key', () => {
    expect((redactConfig(config).apiKeys as Record<string, unknown>).feed_otx).toEqual({
      endpoint: 'https://otx.mirror.example',
    });
  });
});

describe('redactConfig and monitoring alerts', () => {
  it('hides the SMTP password and every webhook header value, keeping the header names', () => {
    const config = parseConfig({
      sources: ['feed_urls'],
      enterprise: {
        monitoring: {
          alerts: {
            email: {
              from: 'a@example.com',
              to: ['b@example.com'],
              smtp: { host: 'smtp.example.com', user: 'alerts', password: 'smtp-pw-1234' },
            },
            webhook: {
              url: 'https://hooks.example.com/x',
              headers: { authorization: 'Bearer tok-5678', 'x-sig': 's-9' },
            },
          },
        },
      },
    });
    const shown = JSON.stringify(redactConfig(config));
    for (const secret of ['smtp-pw-1234', 'tok-5678', 's-9']) expect(shown).not.toContain(secret);
    const alerts = (redactConfig(config).enterprise as { monitoring: { alerts: Record<string, unknown> } }).monitoring
      .alerts;
    expect(alerts.webhook).toEqual({
      url: 'https://hooks.example.com/x',
      headers: { authorization: '[redacted]', 'x-sig': '[redacted]' },
    });
    expect((alerts.email as { smtp: unknown }).smtp).toMatchObject({ user: 'alerts', password: '[redacted]' });
  });
});
