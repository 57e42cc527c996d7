import { describe, expect, it } from 'vitest';
import { isUuid, uuidV5 } from './uuid-v5.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('gives the example of RFC 9562 Appendix A.4', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('agrees with Python uuid.uuid5 on a URL-namespace name and a non-ASCII name', () => {
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, 'http://example.com/'))" and the same for the
    // DNS namespace and 'bücher.de': the name is hashed as UTF-8.
    expect(uuidV5('http://example.com/', URL_NAMESPACE)).toBe('0a300ee9-f9e4-5697-a51a-efc7fafaba67');
    expect(uuidV5('bücher.de', DNS_NAMESPACE)).toBe('1f4eebdd-eb37-5345-b8c6-9e1b16d2d023');
  });

  it('sets version 5 and the RFC variant, and accepts an upper-case namespace', () => {
    const id = uuidV5('anything', DNS_NAMESPACE.toUpperCase());
    expect(id).toBe(uuidV5('anything', DNS_NAMESPACE));
    expect(id[14]).toBe('5');
    expect('89ab').toContain(id[19]);
    expect(isUuid(id)).toBe(true);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(/namespace "not-a-uuid" is not a UUID/);
  });
});
