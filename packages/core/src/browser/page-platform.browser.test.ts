// What a page gives the browser client (issue 24), checked in Chromium itself: a secure context (WebCrypto needs it),
// AES-GCM through WebCrypto, IndexedDB, and core's universal pieces imported as the page's bundle will import them.
import { describe, expect, it } from 'vitest';
import { parseIndicator } from '../indicators/index.js';

/** Resolves the request's result, or rejects with its error. */
function settle<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

describe('the page the browser tests run in', () => {
  it('is a real browser in a secure context', () => {
    expect(navigator.userAgent).toMatch(/Chrome\/\d+/);
    // Not Node: no `process.versions.node` (vitest may define a `process.env` for the page, nothing more).
    const { process } = globalThis as { process?: { versions?: { node?: string } } };
    expect(process?.versions?.node).toBeUndefined();
    expect(isSecureContext).toBe(true);
    expect(location.protocol).toBe('http:');
    expect(['localhost', '127.0.0.1']).toContain(location.hostname);
  });

  it('encrypts and decrypts with AES-256-GCM through WebCrypto, and refuses a changed ciphertext', async () => {
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode('45.148.10.240 is malicious');
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
    expect(sealed.byteLength).toBe(plain.byteLength + 16);
    expect(new TextDecoder().decode(sealed)).not.toContain('45.148.10.240');
    const opened = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed);
    expect(new TextDecoder().decode(opened)).toBe('45.148.10.240 is malicious');
    sealed[0] = (sealed[0] ?? 0) ^ 1;
    await expect(crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed)).rejects.toThrow();
  });

  it('stores and reads back a record in IndexedDB, across a reopen', async () => {
    const name = `threatlib-platform-${crypto.randomUUID()}`;
    const open = () => {
      const request = indexedDB.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('verdicts');
      return settle(request);
    };
    const db = await open();
    const put = db.transaction('verdicts', 'readwrite').objectStore('verdicts').put({ verdict: 'malicious' }, 'k1');
    await settle(put);
    db.close();
    const again = await open();
    const read = await settle(again.transaction('verdicts').objectStore('verdicts').get('k1'));
    expect(read).toEqual({ verdict: 'malicious' });
    again.close();
    await settle(indexedDB.deleteDatabase(name));
  });

  it("runs core's indicator parser (tldts, ipaddr.js) in the page", () => {
    expect(parseIndicator('hxxps://evil[.]example[.]com/login')).toMatchObject({
      type: 'url',
      value: 'https://evil.example.com/login',
    });
    expect(parseIndicator('2001:DB8::1')).toMatchObject({ type: 'ipv6' });
    expect(() => parseIndicator('not an indicator at all')).toThrow(/indicator/i);
  });
});
