import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

describe('securityHeaders', () => {
  it('is what helmet sets, with the given CSP and no-store', () => {
    const headers = securityHeaders({ 'default-src': ["'self'"] });
    expect(headers).toMatchObject({
      'content-security-policy': "default-src 'self'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'strict-transport-security': expect.stringMatching(/^max-age=\d+/),
      'cache-control': 'no-store',
    });
  });

  it('by default, a CSP that loads nothing and may not be framed, worked out once', () => {
    const headers = securityHeaders();
    expect(headers['content-security-policy']?.split(';').sort()).toEqual(
      ["base-uri 'none'", "default-src 'none'", "form-action 'none'", "frame-ancestors 'none'"].sort(),
    );
    expect(headers).toMatchObject({ 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    expect(Object.isFrozen(headers)).toBe(true);
    expect(securityHeaders()).toBe(headers);
  });
});
