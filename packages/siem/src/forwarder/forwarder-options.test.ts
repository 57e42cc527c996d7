import { ConfigurationError, InsecureEndpointError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { type ForwarderPolicy, parseForwarderOptions } from './forwarder-options.js';

const secure: ForwarderPolicy = {
  optionsPath: 'enterprise.siemIntegration',
  enforceHttps: true,
  validateCertificates: true,
};
const relaxed: ForwarderPolicy = { ...secure, enforceHttps: false };

function errorOf(options: unknown, policy = secure): Error {
  try {
    parseForwarderOptions(options, policy);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the options to be refused');
}

describe('enterprise.siemIntegration options', () => {
  it('resolves an HTTPS endpoint, shown without its credentials or query', () => {
    const resolved = parseForwarderOptions(
      { enabled: true, endpoint: 'https://siem.example.com/ingest?token=abc', format: 'cef' },
      secure,
    );
    expect(resolved).toMatchObject({
      transport: 'https',
      host: 'siem.example.com',
      port: 443,
      display: 'https://siem.example.com:443/ingest',
      format: 'cef',
      leef: { version: '2.0', delimiter: '^' },
      headers: {},
      tls: { rejectUnauthorized: true },
    });
  });

  it('takes syslog over TLS on RFC 5425’s port 6514 when none is given, and an IPv6 address', () => {
    expect(parseForwarderOptions({ endpoint: 'syslog+tls://siem.example.com' }, secure)).toMatchObject({
      transport: 'syslog+tls',
      port: 6514,
      display: 'syslog+tls://siem.example.com:6514',
      format: 'json',
    });
    expect(parseForwarderOptions({ endpoint: 'syslog+tls://[::1]:7514' }, secure)).toMatchObject({
      host: '::1',
      port: 7514,
      display: 'syslog+tls://[::1]:7514',
    });
  });

  it('takes plain syslog over TCP and plain HTTP only when security.enforceHttps is false', () => {
    for (const endpoint of ['syslog+tcp://127.0.0.1:15514', 'http://127.0.0.1:8080/in']) {
      const error = errorOf({ endpoint });
      expect(InsecureEndpointError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(
        /^enterprise\.siemIntegration\.endpoint (syslog\+tcp|http):\/\/127\.0\.0\.1:\d+(\/in)? is not encrypted; security\.enforceHttps refuses it/,
      );
      expect(parseForwarderOptions({ endpoint }, relaxed).host).toBe('127.0.0.1');
    }
  });

  it('follows security.validateCertificates unless tls.rejectUnauthorized says otherwise', () => {
    const lab = { ...secure, validateCertificates: false };
    expect(parseForwarderOptions({ endpoint: 'https://x.example' }, lab).tls.rejectUnauthorized).toBe(false);
    expect(
      parseForwarderOptions({ endpoint: 'https://x.example', tls: { rejectUnauthorized: true } }, lab).tls
        .rejectUnauthorized,
    ).toBe(true);
  });

  it.each([
    [{}, 'enterprise.siemIntegration.endpoint: required: where to send alerts'],
    [
      { endpoint: 'siem.example.com:514' },
      'enterprise.siemIntegration.endpoint: unsupported scheme "siem.example.com"',
    ],
    [{ endpoint: 'not a url' }, 'enterprise.siemIntegration.endpoint: expected an absolute URL'],
    [
      { endpoint: 'syslog+udp://127.0.0.1:514' },
      'unsupported scheme "syslog+udp": use https, http, syslog+tls or syslog+tcp',
    ],
    [{ endpoint: 'syslog+tcp://127.0.0.1' }, 'enterprise.siemIntegration.endpoint: syslog+tcp needs a port'],
    [{ endpoint: 'syslog+tls://127.0.0.1:6514/path' }, 'a syslog endpoint is host and port only'],
    [{ endpoint: 'https://user:hunter22@siem.example.com/in' }, 'credentials do not go in the URL'],
    [{ endpoint: 'syslog+tls://user@siem.example.com' }, 'syslog has no credentials'],
    [
      { endpoint: 'https://x.example', format: 'xml' },
      'enterprise.siemIntegration.format: expected one of json, cef, leef',
    ],
    [
      { endpoint: 'https://x.example', leef: { version: '3.0' } },
      'enterprise.siemIntegration.leef.version: expected "1.0" or "2.0"',
    ],
    [
      { endpoint: 'https://x.example', leef: { delimiter: '|' } },
      'enterprise.siemIntegration.leef.delimiter: cannot be "|"',
    ],
    [{ endpoint: 'https://x.example', leef: { delimiter: '^^' } }, 'leef.delimiter: must be one US-ASCII character'],
    [
      { endpoint: 'https://x.example', headers: { 'bad name': 'x' } },
      'enterprise.siemIntegration.headers: expected a header name (an RFC 9110 token',
    ],
    [
      { endpoint: 'https://x.example', headers: { authorization: 'a\r\nb' } },
      'enterprise.siemIntegration.headers.authorization: a header value cannot hold a line break (CR or LF): character 2 is one',
    ],
    // undici refuses every control character but tab, and anything above U+00FF, not only CR, LF and NUL.
    [
      { endpoint: 'https://x.example', headers: { authorization: 'Bearer hunter22\u0007' } },
      'enterprise.siemIntegration.headers.authorization: a header value cannot hold a control character',
    ],
    [
      { endpoint: 'https://x.example', headers: { authorization: 'Bearer hunter22\u007f' } },
      'enterprise.siemIntegration.headers.authorization: a header value cannot hold a control character',
    ],
    [
      { endpoint: 'https://x.example', headers: { authorization: 'Bearer hunter22\u2028' } },
      'enterprise.siemIntegration.headers.authorization: a header value cannot hold a character above U+00FF',
    ],
    [
      { endpoint: 'syslog+tls://x.example', headers: { authorization: 'Bearer t' } },
      'headers are sent with HTTP(S) POSTs only',
    ],
    [{ endpoint: 'https://x.example', colour: 'blue' }, 'enterprise.siemIntegration.colour: unknown field'],
  ])('refuses %j naming the option', (options, message) => {
    const error = errorOf(options);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^Configuration invalid: /);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter22');
  });

  it('refuses TLS options for an endpoint without TLS', () => {
    expect(errorOf({ endpoint: 'syslog+tcp://127.0.0.1:514', tls: { ca: 'PEM' } }, relaxed).message).toContain(
      'enterprise.siemIntegration.tls: TLS options apply to https:// and syslog+tls:// only',
    );
  });
});
