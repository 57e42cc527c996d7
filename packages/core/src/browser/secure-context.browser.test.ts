// browser.secureContext in Chromium: the test page (http://localhost, a secure context) passes the check with the
// page's real global scope, whose crypto.subtle is there. (The refusal is checked in secure-context.test.ts: a page
// of this project is always served from localhost, which browsers count as secure.)
import { describe, expect, it } from 'vitest';
import { checkSecureContext } from './secure-context.js';

describe('browser.secureContext in a page', () => {
  it('passes on a page served from localhost, where WebCrypto is available', () => {
    expect(isSecureContext).toBe(true);
    expect(typeof crypto.subtle.encrypt).toBe('function');
    expect(() => checkSecureContext(true)).not.toThrow();
  });
});
