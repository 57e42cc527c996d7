import { describe, expect, it } from 'vitest';
import { entraRefusal, isAzureIdentityError, readAzureErrorBody } from './azure-failure.js';

describe('entraRefusal', () => {
  it("reads Entra ID's AADSTS code and sentence, without the trace that follows", () => {
    const message =
      'ClientSecretCredential authentication failed: AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value. Trace ID: 0a1b Correlation ID: 2c3d';
    expect(entraRefusal(message)).toEqual({
      code: 'AADSTS7000215',
      reason:
        'AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value.',
    });
    expect(entraRefusal('AADSTS90002: Tenant not found.\r\nmore')).toEqual({
      code: 'AADSTS90002',
      reason: 'AADSTS90002: Tenant not found.',
    });
  });

  it('is undefined for a message quoting none', () => {
    expect(entraRefusal('connect ECONNREFUSED 127.0.0.1:443')).toBeUndefined();
    expect(entraRefusal('AADSTS without a code')).toBeUndefined();
  });
});

describe('isAzureIdentityError', () => {
  it("knows @azure/identity's errors by name", () => {
    for (const name of ['AuthenticationError', 'AuthenticationRequiredError', 'CredentialUnavailableError']) {
      expect(isAzureIdentityError(Object.assign(new Error('x'), { name }))).toBe(true);
    }
    expect(isAzureIdentityError(Object.assign(new Error('x'), { name: 'RestError' }))).toBe(false);
    expect(isAzureIdentityError('AuthenticationError')).toBe(false);
    expect(isAzureIdentityError(undefined)).toBe(false);
  });
});

describe('readAzureErrorBody', () => {
  it("reads ARM's error body, the innermost inner error's message added", () => {
    const body = {
      error: {
        code: 'InvalidTable',
        message: 'The table is not valid',
        innererror: { message: 'outer reason', innererror: { message: 'column TimeGenerated is missing' } },
      },
    };
    expect(readAzureErrorBody(JSON.stringify(body))).toEqual({
      code: 'InvalidTable',
      message: 'The table is not valid: column TimeGenerated is missing',
    });
  });

  it("reads the upload API's {statusCode, message}, and a body a client kept parsed", () => {
    expect(readAzureErrorBody('{"statusCode":429,"message":"Rate limit is exceeded."}')).toEqual({
      message: 'Rate limit is exceeded.',
    });
    expect(readAzureErrorBody(undefined, { error: { code: 'Forbidden', message: 'no access' } })).toEqual({
      code: 'Forbidden',
      message: 'no access',
    });
  });

  it('is empty for a body that is not JSON or not an object, and stops following inner errors', () => {
    expect(readAzureErrorBody('<html>Bad gateway</html>')).toEqual({});
    expect(readAzureErrorBody('"text"')).toEqual({});
    expect(readAzureErrorBody(null)).toEqual({});
    let nested: Record<string, unknown> = { message: 'deepest' };
    for (let i = 0; i < 20; i++) nested = { message: `level ${i}`, innererror: nested };
    expect(readAzureErrorBody(JSON.stringify({ error: { message: 'top', innererror: nested } })).message).toBe(
      'top: level 15',
    );
  });
});
