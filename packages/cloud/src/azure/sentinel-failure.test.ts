import { describe, expect, it } from 'vitest';
import { answerFailure, thrownFailure } from './sentinel-failure.js';

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

describe('answerFailure: a Sentinel call answered with an error', () => {
  it("names Azure's code and message, and the innermost inner error's, as the SIEM connector does", () => {
    const body = JSON.stringify({
      error: {
        code: 'BadRequest',
        message: 'The request is invalid.',
        innererror: { code: 'InvalidPattern', message: "pattern: unexpected token ']' at 41" },
      },
    });
    const error = answerFailure('UploadStixObjects', 400, body, []);
    expect(error.message).toBe(
      "Sentinel threat-intelligence upload (threat-intelligence-stix-objects:upload) failed: BadRequest (HTTP 400): The request is invalid.: pattern: unexpected token ']' at 41",
    );
    expect(error.serviceCode).toBe('BadRequest');
    expect(error.isRetryable).toBe(false);
  });

  it("reads the upload API's {statusCode, message}, retried when throttled, never quoting a secret", () => {
    const body = '{"statusCode":429,"message":"Rate limit is exceeded for key s3cret-key."}';
    const error = answerFailure('UploadStixObjects', 429, body, ['s3cret-key']);
    expect(error.message).toContain('(HTTP 429): Rate limit is exceeded for key [REDACTED].');
    expect(error.isRetryable).toBe(true);
  });
});
