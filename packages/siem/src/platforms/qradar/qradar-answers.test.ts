import { describe, expect, it } from 'vitest';
import { siemErrors } from '../../connector/call-errors.js';
import type { PlatformCall } from '../platform.js';
import { qradarFailure } from './qradar-answers.js';

const call: PlatformCall = {
  operation: 'sendAlert',
  signal: new AbortController().signal,
  attempt: 1,
  errors: siemErrors({
    platform: 'siem_b',
    vendor: 'QRadar',
    operation: 'sendAlert',
    address: 'qradar.example.com:443',
    scrub: (text) => text.replaceAll('s3cr3t-token', '[secret]'),
  }),
};

const answer = (statusCode: number, body: unknown, headers: Record<string, string> = {}) => ({
  statusCode,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const envelope = (status: number, code: number, message: string, description = '') => ({
  http_response: { code: status, message: 'x' },
  code,
  description,
  details: {},
  message,
});

describe("QRadar's error envelope as connector errors", () => {
  it('401 and 403 are authentication failures with QRadar’s reason and code, never retried', () => {
    const unauthorized = qradarFailure(
      call,
      answer(401, envelope(401, 18, 'No SEC header present in request.')),
      'x',
      '22.0',
    );
    expect(unauthorized).toMatchObject({
      code: 'SIEM_AUTHENTICATION_FAILED',
      message: 'authentication failed: No SEC header present in request. (QRadar code 18)',
      siemCode: 18,
      isRetryable: false,
    });
    const forbidden = qradarFailure(
      call,
      answer(403, envelope(403, 26, 'User has insufficient capabilities to access this endpoint resource')),
      'adding indicators to reference set "a"',
      '22.0',
    );
    expect(forbidden.message).toMatch(
      /^authentication failed: the credentials may not call this endpoint \(adding indicators to reference set "a"\): User has insufficient capabilities .* \(QRadar code 26\)/,
    );
  });

  it('5xx and 429 are retryable, with Retry-After when QRadar (or its proxy) sends one; 4xx are not', () => {
    const busy = qradarFailure(
      call,
      answer(503, envelope(503, 1010, 'Ariel is busy'), { 'retry-after': '7' }),
      'x',
      '22.0',
    );
    expect(busy).toMatchObject({ isRetryable: true, retryAfterMs: 7000, statusCode: 503, siemCode: 1010 });
    expect(qradarFailure(call, answer(429, ''), 'x', '22.0').isRetryable).toBe(true);
    const invalid = qradarFailure(
      call,
      answer(422, envelope(422, 1005, 'evil.com is not a valid IP address', 'A request parameter is not valid')),
      'adding 1 indicator(s) to reference set "ips"',
      '22.0',
    );
    expect(invalid).toMatchObject({
      isRetryable: false,
      message:
        'QRadar sendAlert: adding 1 indicator(s) to reference set "ips": HTTP 422: evil.com is not a valid IP address — A request parameter is not valid (QRadar code 1005)',
    });
  });

  it('says what to do about a removed endpoint or API version', () => {
    expect(qradarFailure(call, answer(410, envelope(410, 0, 'gone')), 'x', '15.0').message).toMatch(
      /QRadar removed this endpoint \(HTTP 410: gone \(QRadar code 0\)\); check apiVersion 15\.0/,
    );
    expect(
      qradarFailure(call, answer(422, envelope(422, 1005, 'Version 12.0 is no longer supported')), 'x', '12.0').message,
    ).toMatch(/refused API version 12\.0 .*; set apiVersion to one it supports$/);
  });

  it('quotes a body that is not the envelope (a proxy page), and scrubs secrets from whatever it quotes', () => {
    const proxy = qradarFailure(call, answer(502, '<html>Bad gateway for s3cr3t-token</html>'), 'x', '22.0');
    expect(proxy.message).toBe('QRadar sendAlert: x: HTTP 502: <html>Bad gateway for [secret]</html>');
    expect(proxy.isRetryable).toBe(true);
  });
});
