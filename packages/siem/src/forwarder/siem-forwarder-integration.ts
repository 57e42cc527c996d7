import type { IntegrationFactory } from '@threatlib/core/integration';
import type { SiemForwarderOptions } from './forwarder-options.js';
import { SiemForwarder } from './siem-forwarder.js';

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    /** The forwarder `client.start()` builds when `enterprise.siemIntegration.enabled` is true. */
    siemForwarder: SiemForwarder;
  }
}

/**
 * The factory `client.start()` calls when `enterprise.siemIntegration.enabled` is true (core imports it from
 * `@threatlib/siem`): every alert the client raises or is given is then also sent to the endpoint, in the format
 * asked for, with no other code. Options are checked under `context.optionsPath` (`enterprise.siemIntegration`);
 * `security.enforceHttps` refuses `http://` and `syslog+tcp://`, and `security.validateCertificates` is the default
 * of `tls.rejectUnauthorized`.
 *
 * @example
 * ```ts
 * const client = new ThreatClient({
 *   sources: ['feed_urls'],
 *   enterprise: { siemIntegration: { enabled: true, endpoint: 'syslog+tls://siem.example.com:6514', format: 'cef' } },
 * });
 * await client.start(); // imports @threatlib/siem and builds the forwarder
 * ```
 *
 * @throws {ConfigurationError} `Configuration invalid: enterprise.siemIntegration.<option>: ...` naming each problem.
 * @throws {InsecureEndpointError} for `http://` or `syslog+tcp://` while `security.enforceHttps` is on.
 */
export const createSiemForwarderIntegration: IntegrationFactory<SiemForwarderOptions, SiemForwarder> = (
  options,
  context,
) => {
  const { security } = context.client.config;
  return new SiemForwarder(options, {
    optionsPath: context.optionsPath,
    enforceHttps: security.enforceHttps,
    validateCertificates: security.validateCertificates,
  });
};
