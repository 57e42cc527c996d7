import { describe, expect, it } from 'vitest';
import { InsecureContextError } from '../errors/insecure-context-error.js';
import { checkSecureContext } from './secure-context.js';

const subtle = {};

describe('browser.secureContext', () => {
  it('refuses a page that is not a secure context, naming it and saying why (WebCrypto)', () => {
    const page = { isSecureContext: false, location: { origin: 'http://intranet.example' }, crypto: {} };
    const error = (() => {
      try {
        checkSecureContext(true, page);
      } catch (caught) {
        return caught;
      }
    })();
    expect(InsecureContextError.isInstance(error)).toBe(true);
    expect((error as InsecureContextError).origin).toBe('http://intranet.example');
    expect((error as Error).message).toMatch(
      /browser\.secureContext is true but this page \(http:\/\/intranet\.example\) is not a secure context.*WebCrypto.*https:\/\//,
    );
  });

  it('passes a secure context with WebCrypto, and a scope that is not a page (Node.js)', () => {
    expect(() => checkSecureContext(true, { isSecureContext: true, crypto: { subtle } })).not.toThrow();
    expect(() => checkSecureContext(true, {})).not.toThrow();
    expect(() => checkSecureContext(true)).not.toThrow();
  });

  it('refuses a secure context without crypto.subtle (an old browser)', () => {
    expect(() => checkSecureContext(true, { isSecureContext: true, crypto: {} })).toThrow(/no WebCrypto/);
  });

  it('checks nothing when the option is off', () => {
    expect(() => checkSecureContext(false, { isSecureContext: false })).not.toThrow();
  });
});
