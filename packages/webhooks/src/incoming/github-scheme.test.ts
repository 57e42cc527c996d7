import { createHash, createHmac } from 'node:crypto';
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
  it('prechecks the signature header (401 when implausible), then requires X-GitHub-Delivery (400, saying why)', () => {
    const delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
    expect(scheme().precheck({ 'x-hub-signature-256': SIGNATURE, 'x-github-delivery': delivery })).toEqual({
      plausible: true,
    });
    expect(scheme().precheck({}).plausible).toBe(false);
    expect(scheme().precheck({ 'x-hub-signature-256': SIGNATURE.slice(0, 20) })).not.toHaveProperty('badRequest');
    expect(scheme().precheck({ 'x-hub-signature-256': [SIGNATURE, SIGNATURE] }).plausible).toBe(false);
    expect(scheme().precheck({ 'x-hub-signature-256': SIGNATURE })).toMatchObject({
      plausible: false,
      badRequest: 'X-GitHub-Delivery is required (GitHub sends the delivery GUID) and is missing',
    });
    const refused = (value: string | string[]) =>
      (scheme().precheck({ 'x-hub-signature-256': SIGNATURE, 'x-github-delivery': value }) as { badRequest?: string })
        .badRequest;
    expect(refused('')).toMatch(/got an empty value$/);
    expect(refused(`${delivery}, ${delivery}`)).toMatch(
      /got a value with spaces or commas \(the header sent twice\?\)$/,
    );
    expect(refused([delivery, delivery])).toMatch(/spaces or commas/);
    expect(refused('x'.repeat(300))).toMatch(/got 300 characters$/);
    expect(refused('caf\u00e9')).toMatch(/got control or non-ASCII characters$/);
    // What was received is described, never quoted.
    expect(refused('<script>\u00e9')).not.toContain('<script>');
  });

  it("verifies GitHub's documented example, keyed on a digest of the signed body, not on X-GitHub-Delivery", () => {
    const first = scheme().verify(
      request({ 'x-hub-signature-256': SIGNATURE, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' }),
      1_000,
    );
    expect(first).toEqual({
      verified: true,
      replayKey: `sha256:${createHash('sha256').update(PAYLOAD).digest('base64url')}`,
      replayableUntil: 1_000 + 86_400_000,
    });
    // Another delivery id, or upper-case hex, is the same message.
    const again = scheme().verify(
      request({ 'x-hub-signature-256': SIGNATURE.toUpperCase().replace('SHA256', 'sha256'), 'x-github-delivery': 'b' }),
      0,
    );
    expect(again).toMatchObject({ verified: true, replayKey: (first as { replayKey: string }).replayKey });
    expect(
      new GithubScheme([Buffer.from(SECRET)], 60).verify(
        request({ 'x-hub-signature-256': SIGNATURE, 'x-github-delivery': 'c' }),
        0,
      ),
    ).toMatchObject({ replayableUntil: 60_000 });
  });

  it('refuses a tampered payload, a wrong secret, a missing or malformed header, and the sha1 header alone', () => {
    const delivery = { 'x-github-delivery': 'd' };
    expect(
      scheme().verify(request({ ...delivery, 'x-hub-signature-256': SIGNATURE }, 'Hello, World?'), 0).verified,
    ).toBe(false);
    expect(
      scheme("It's a Secret to Everybody!").verify(request({ ...delivery, 'x-hub-signature-256': SIGNATURE }), 0)
        .verified,
    ).toBe(false);
    expect(scheme().verify(request(delivery), 0).verified).toBe(false);
    expect(scheme().verify(request({ ...delivery, 'x-hub-signature-256': SIGNATURE.slice(7) }), 0).verified).toBe(
      false,
    );
    expect(scheme().verify(request({ ...delivery, 'x-hub-signature-256': `${SIGNATURE}0` }), 0).verified).toBe(false);
    expect(scheme().verify(request({ ...delivery, 'x-hub-signature-256': [SIGNATURE, SIGNATURE] }), 0).verified).toBe(
      false,
    );
    const sha1 = `sha1=${createHmac('sha1', SECRET).update(PAYLOAD).digest('hex')}`;
    expect(scheme().verify(request({ ...delivery, 'x-hub-signature': sha1 }), 0).verified).toBe(false);
    // Signed, but without its delivery id.
    expect(scheme().verify(request({ 'x-hub-signature-256': SIGNATURE }), 0)).toMatchObject({
      verified: false,
      reason: expect.stringContaining('X-GitHub-Delivery is required'),
    });
  });
});
