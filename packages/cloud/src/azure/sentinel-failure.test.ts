import { describe, expect, it } from 'vitest';
import { thrownFailure } from './sentinel-failure.js';

describe('thrownFailure: a Sentinel call that got no answer', () => {
  it('names a certificate not valid yet, not retried', () => {
    const error = thrownFailure('UploadStixObjects', Object.assign(new Error('x'), { code: 'CERT_NOT_YET_VALID' }), []);
    expect(error.message).toContain('TLS certificate not valid yet (CERT_NOT_YET_VALID)');
    expect(error.isRetryable).toBe(false);
  });

  it("names undici's closed socket in a cause, retried", () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const error = thrownFailure('GetWorkspace', new TypeError('fetch failed', { cause: socket }), []);
    expect(error.message).toContain('connection closed by the server (UND_ERR_SOCKET)');
    expect(error.isRetryable).toBe(true);
  });

  it('keeps the words it had: connection refused', () => {
    const error = thrownFailure('CreateIndicator', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), []);
    expect(error.message).toContain('connection refused (ECONNREFUSED)');
  });
});
