import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { secretBytes } from './incoming-options.js';
import { StandardWebhooksScheme } from './standard-webhooks-scheme.js';

/*
 * Known answers from the Standard Webhooks reference library's own tests
 * (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts): the secret, message id, timestamp
 * and payload of "sign function works" give that signature, and "multi sig payload is valid" mixes it with others.
 */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT = VECTOR.timestamp * 1000;

function scheme(secrets: string[] = [VECTOR.secret], toleranceSeconds = 300) {
  return new StandardWebhooksScheme(secrets.map(secretBytes), toleranceSeconds);
}

function request(headers: Record<string, string | string[]>, payload: string | Buffer = VECTOR.payload) {
  return { headers, body: Buffer.isBuffer(payload) ? payload : Buffer.from(payload) };
}

const vectorHeaders = {
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': VECTOR.signature,
};

describe('StandardWebhooksScheme', () => {
  it('prechecks the headers alone: plausible for the reference vector, not for what no body could make verify', () => {
    expect(scheme().precheck(vectorHeaders, AT)).toEqual({ plausible: true });
    // Several signatures while keys rotate: one of the right form is enough to read the body.
    expect(
      scheme().precheck({ ...vectorHeaders, 'webhook-signature': `v2,abc ${VECTOR.signature}` }, AT).plausible,
    ).toBe(true);
    const refused = (headers: Record<string, string | string[]>, at = AT) => scheme().precheck(headers, at);
    expect(refused({}, AT)).toMatchObject({ plausible: false, reason: expect.stringContaining('missing or repeated') });
    expect(refused({ ...vectorHeaders, 'webhook-id': [VECTOR.id, VECTOR.id] }).plausible).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-timestamp': 'yesterday' }).plausible).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-signature': 'v1,short' }).plausible).toBe(false);
    expect(refused(vectorHeaders, AT + 301_000)).toMatchObject({
      plausible: false,
      reason: expect.stringContaining('beyond the tolerance'),
    });
    expect(refused(vectorHeaders, AT - 301_000).plausible).toBe(false);
  });

  it('verifies the reference test vector, and remembers the id until the timestamp leaves the tolerance', () => {
    expect(scheme().verify(request(vectorHeaders), AT)).toEqual({
      verified: true,
      replayKey: VECTOR.id,
      replayableUntil: AT + 300_000,
    });
  });

  it('uses a secret without the whsec_ prefix as its UTF-8 bytes (the library’s format "raw"), not as base64', () => {
    // The reference library base64-decodes an unprefixed secret; threatlib documents a plain string as its UTF-8
    // bytes (INTERFACE.md's `secret: string`), which is the library's `format: 'raw'`.
    const plain = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(scheme([plain]).verify(request(vectorHeaders), AT).verified).toBe(false);
    const raw = new Webhook(plain, { format: 'raw' });
    const signature = raw.sign(VECTOR.id, new Date(AT), VECTOR.payload);
    expect(scheme([plain]).verify(request({ ...vectorHeaders, 'webhook-signature': signature }), AT).verified).toBe(
      true,
    );
  });

  it('accepts several space-separated signatures when one matches (key rotation), ignoring other versions', () => {
    const signatures = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      VECTOR.signature,
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ].join(' ');
    expect(scheme().verify(request({ ...vectorHeaders, 'webhook-signature': signatures }), AT).verified).toBe(true);
    const others = signatures.replace(VECTOR.signature, 'v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(scheme().verify(request({ ...vectorHeaders, 'webhook-signature': others }), AT).verified).toBe(false);
  });

  it('accepts a request signed with any of the receiver’s secrets (rotation on the receiving side)', () => {
    const next = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const signature = new Webhook(next).sign('msg_1', new Date(AT), VECTOR.payload);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': signature,
    };
    expect(scheme([VECTOR.secret]).verify(request(headers), AT).verified).toBe(false);
    expect(scheme([VECTOR.secret, next]).verify(request(headers), AT).verified).toBe(true);
  });

  it('refuses a tampered body, id or timestamp, a wrong secret and a truncated signature', () => {
    const refused = (headers: Record<string, string>, payload = VECTOR.payload, secrets?: string[]) =>
      scheme(secrets).verify(request(headers, payload), AT).verified;
    expect(refused(vectorHeaders, '{"test": 2432232315}')).toBe(false);
    expect(refused(vectorHeaders, `${VECTOR.payload} `)).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJel' })).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-timestamp': String(VECTOR.timestamp + 1) })).toBe(false);
    expect(refused(vectorHeaders, VECTOR.payload, [`whsec_${Buffer.alloc(24, 1).toString('base64')}`])).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-signature': VECTOR.signature.slice(0, 20) })).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-signature': 'v1,' })).toBe(false);
    expect(refused({ ...vectorHeaders, 'webhook-signature': 'v1,dawfeoifkpqwoekfpqoekf' })).toBe(false);
  });

  it('refuses a timestamp beyond the tolerance either way, and takes one at its edge', () => {
    const s = scheme();
    expect(s.verify(request(vectorHeaders), AT + 300_000).verified).toBe(true);
    expect(s.verify(request(vectorHeaders), AT - 300_000).verified).toBe(true);
    const old = s.verify(request(vectorHeaders), AT + 301_000);
    expect(old).toMatchObject({ verified: false, reason: expect.stringContaining('beyond the tolerance') });
    const future = s.verify(request(vectorHeaders), AT - 301_000);
    expect(future).toMatchObject({ verified: false, reason: expect.stringContaining('beyond the tolerance') });
    expect(scheme([VECTOR.secret], 10).verify(request(vectorHeaders), AT + 11_000).verified).toBe(false);
  });

  it('refuses missing, repeated and malformed headers, without throwing', () => {
    const s = scheme();
    for (const name of Object.keys(vectorHeaders)) {
      const headers: Record<string, string | string[]> = { ...vectorHeaders };
      delete headers[name];
      expect(s.verify(request(headers), AT).verified).toBe(false);
      headers[name] = [(vectorHeaders as Record<string, string>)[name] as string, 'x'];
      expect(s.verify(request(headers), AT).verified).toBe(false);
    }
    for (const timestamp of [
      'hello',
      '',
      '1614265330.5',
      '-1614265330',
      ' 1614265330',
      '1e9',
      '99999999999999999999',
    ]) {
      expect(s.verify(request({ ...vectorHeaders, 'webhook-timestamp': timestamp }), AT).verified).toBe(false);
    }
    for (const id of ['', 'msg with space', 'x'.repeat(257), 'msg_\u00e9']) {
      expect(s.verify(request({ ...vectorHeaders, 'webhook-id': id }), AT).verified).toBe(false);
    }
  });

  it('never puts the secret, the signature or a header value in its reason', () => {
    const reasons = [
      scheme().verify(
        request({ ...vectorHeaders, 'webhook-signature': 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=' }),
        AT,
      ),
      scheme().verify(request({ ...vectorHeaders, 'webhook-id': 'msg secret' }), AT),
      scheme().verify(request(vectorHeaders), AT + 10_000_000),
    ].map((v) => (v.verified ? '' : v.reason));
    for (const reason of reasons) {
      expect(reason).not.toBe('');
      for (const leak of ['MfKQ9r8', 'Ceo5qEr', 'g0hM9SsE', 'msg secret', VECTOR.id])
        expect(reason).not.toContain(leak);
    }
  });

  it('verifies what the reference library signs, and signatures over the exact bytes, binary included', () => {
    const wh = new Webhook(VECTOR.secret);
    for (const payload of ['{"a":"\u00e9\u{1F600}"}', '{"a":1}\r\n', '']) {
      const headers = {
        'webhook-id': 'msg_utf8',
        'webhook-timestamp': String(VECTOR.timestamp),
        'webhook-signature': wh.sign('msg_utf8', new Date(AT), payload),
      };
      expect(scheme().verify(request(headers, payload), AT).verified).toBe(true);
    }
    // The library turns a Buffer into a string before signing, so bytes that are not UTF-8 are signed by hand.
    const binary = Buffer.from([0x7b, 0xff, 0x80, 0x7d]);
    const mac = createHmac('sha256', secretBytes(VECTOR.secret))
      .update(Buffer.concat([Buffer.from(`msg_bin.${VECTOR.timestamp}.`), binary]))
      .digest('base64');
    const headers = {
      'webhook-id': 'msg_bin',
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': `v1,${mac}`,
    };
    expect(scheme().verify(request(headers, binary), AT).verified).toBe(true);
    expect(scheme().verify(request(headers, Buffer.from(binary.toString('utf8'))), AT).verified).toBe(false);
  });
});
