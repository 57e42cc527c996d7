import { describe, expect, it } from 'vitest';
import {
  CERTIFICATE_FAILURE_WORDS,
  isCertificateFailure,
  NETWORK_FAILURE_WORDS,
  networkFailureCode,
} from './network-failure.js';

describe('networkFailureCode', () => {
  it("finds Node's code on the error itself", () => {
    expect(networkFailureCode(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
  });

  it('finds it in the causes undici and the SDKs wrap it in', () => {
    const node = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const fetchError = new TypeError('fetch failed', { cause: node });
    const sdkError = Object.assign(new Error('request failed', { cause: fetchError }), { code: 'REQUEST_SEND_ERROR' });
    expect(networkFailureCode(sdkError)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('reads a code named in a message when no error carries one, the longest name first', () => {
    expect(networkFailureCode({}, 'ClientAuthError: getaddrinfo ENOTFOUND login.example')).toBe('ENOTFOUND');
    expect(networkFailureCode({}, 'unable: UNABLE_TO_GET_ISSUER_CERT_LOCALLY')).toBe(
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    );
    expect(networkFailureCode({}, 'the ECONNREFUSEDX is no code')).toBeUndefined();
  });

  it('knows no code it has no words for, and never reads a message it was not given', () => {
    expect(networkFailureCode(Object.assign(new Error('x'), { code: 'ERR_SOMETHING_ELSE' }))).toBeUndefined();
    expect(networkFailureCode(new Error('ECONNRESET in the text'))).toBeUndefined();
    expect(networkFailureCode(undefined)).toBeUndefined();
  });

  it('stops after five causes (a cycle never hangs)', () => {
    const cyclic: { code?: string; cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(networkFailureCode(cyclic)).toBeUndefined();
  });
});

describe('the words', () => {
  it('say what failed in a few words, certificates apart from the network', () => {
    expect(NETWORK_FAILURE_WORDS.ECONNREFUSED).toBe('connection refused');
    expect(NETWORK_FAILURE_WORDS.UND_ERR_SOCKET).toBe('connection closed by the server');
    expect(CERTIFICATE_FAILURE_WORDS.CERT_HAS_EXPIRED).toBe('TLS certificate expired');
    expect(isCertificateFailure('CERT_NOT_YET_VALID')).toBe(true);
    expect(isCertificateFailure('ECONNREFUSED')).toBe(false);
    expect(isCertificateFailure('toString')).toBe(false);
    expect(isCertificateFailure(undefined)).toBe(false);
  });
});
