import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse-config.js';
import { configSecrets, scrubSecrets } from './secret-scrubber.js';

describe('configSecrets', () => {
  it('finds API keys, passwords, client secrets and every webhook header value, and nothing else', () => {
    const config = parseConfig({
      sources: ['feed_otx', 'feed_scan'],
      apiKeys: { feed_otx: 'otx-key-aaaa1111', feed_scan: { key: 'vt-key-bbbb2222', timeout: 5000 } },
      caching: { type: 'kvserver', kvserver: { password: 'redis-pw-cccc' } },
      security: {
        authentication: {
          type: 'oauth2',
          tokenEndpoint: 'https://idp.example/token',
          clientId: 'id',
          clientSecret: 'oauth-secret-dddd',
        },
      },
      enterprise: {
        monitoring: {
          alerts: {
            email: {
              from: 'a@example.com',
              to: ['b@example.com'],
              smtp: { host: 'smtp.example.com', password: 'smtp-pw-eeee' },
            },
            webhook: { url: 'https://hooks.example.com/x', headers: { 'x-signature': 'sig-ffff0000' } },
          },
        },
      },
    });
    expect(configSecrets(config).sort()).toEqual(
      [
        'otx-key-aaaa1111',
        'vt-key-bbbb2222',
        'redis-pw-cccc',
        'oauth-secret-dddd',
        'smtp-pw-eeee',
        'sig-ffff0000',
      ].sort(),
    );
  });
});

describe('scrubSecrets', () => {
  it('replaces every occurrence of each secret, the longest first, and any bearer token', () => {
    expect(scrubSecrets('key abcd1234 then abcd12345678 and abcd1234 again', ['abcd1234', 'abcd12345678'])).toBe(
      'key [redacted] then [redacted] and [redacted] again',
    );
    expect(scrubSecrets('server said: Authorization: Bearer eyJhbGciOi.x-y_z', [])).toBe(
      'server said: Authorization: Bearer [redacted]',
    );
  });
});
