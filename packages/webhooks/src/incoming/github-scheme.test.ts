import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GithubScheme } from './github-scheme.js';

/*
 * GitHub's documented example ("Validating webhook deliveries", testing the signature validation): the secret
 * "It's a Secret to Everybody" and the payload "Hello, World!" give this X-Hub-Signature-256.
 */
const SECRET = "It's a Secret to Everybody";
const PAYLOAD = 'Hello, World!';
const SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

const scheme = (secret = SECRET) => new GithubScheme([Buffer.from(secret, 'utf8')], 86_400);
const request = (headers: Record<string, string | string[]>, payload = PAYLOAD) => ({
  headers,
  body: Buffer.from(payload),
});

describe('GithubScheme', () => {
  it('prechecks the signature header alone: there once, and of the form sha256=<64 hex digits>', () => {
    expect(scheme().precheck({ 'x-hub-signature-256': SIGNATURE })).toEqual({ plausible: true });
    expect(scheme().precheck({}).plausible).toBe(false);
    expect(scheme().precheck({ 'x-hub-signature-256': SIGNATURE.slice(0, 20) }).plausible).toBe(false);
    expect(scheme().precheck({ 'x-hub-signature-256': [SIGNATURE, SIGNATURE] }).plausible).toBe(false);
  });

  it("verifies GitHub's documented example, keyed on X-GitHub-Delivery for replays", () => {
    const delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
    expect(
      scheme().verify(request({ 'x-hub-signature-256': SIGNATURE, 'x-github-delivery': delivery }), 1_000),
    ).toEqual({ verified: true, messageId: delivery, replayableUntil: 1_000 + 86_400_000 });
    expect(
      scheme().verify(request({ 'x-hub-signature-256': SIGNATURE.toUpperCase().replace('SHA256', 'sha256') }), 0),
    ).toMatchObject({ verified: true, messageId: undefined });
  });

  it('refuses a tampered payload, a wrong secret, a missing or malformed header, and the sha1 header alone', () => {
    expect(scheme().verify(request({ 'x-hub-signature-256': SIGNATURE }, 'Hello, World?'), 0).verified).toBe(false);
    expect(
      scheme("It's a Secret to Everybody!").verify(request({ 'x-hub-signature-256': SIGNATURE }), 0).verified,
    ).toBe(false);
    expect(scheme().verify(request({}), 0).verified).toBe(false);
    expect(scheme().verify(request({ 'x-hub-signature-256': SIGNATURE.slice(7) }), 0).verified).toBe(false);
    expect(scheme().verify(request({ 'x-hub-signature-256': `${SIGNATURE}0` }), 0).verified).toBe(false);
    expect(scheme().verify(request({ 'x-hub-signature-256': [SIGNATURE, SIGNATURE] }), 0).verified).toBe(false);
    const sha1 = `sha1=${createHmac('sha1', SECRET).update(PAYLOAD).digest('hex')}`;
    expect(scheme().verify(request({ 'x-hub-signature': sha1 }), 0).verified).toBe(false);
  });
});
