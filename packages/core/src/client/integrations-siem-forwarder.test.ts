// The integration the client builds from enterprise.siemIntegration with @threatlib/siem.
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { IntegrationContext } from '../integration/integration.js';
import type { IntegrationFactory } from '../integration/integration-factory.js';
import { client, fakeIntegration, fakePackage, loaderOf, siemOptions } from './integration-fakes.test-suite.js';

describe('the integration enterprise.siemIntegration builds', () => {
  const forwarding = { enabled: true, endpoint: 'syslog+tls://127.0.0.1:6514', format: 'cef' } as const;

  it('is built by @threatlib/siem’s createSiemForwarderIntegration from the option, after the integrations', async () => {
    const log: string[] = [];
    const contexts: IntegrationContext[] = [];
    const forwarder: IntegrationFactory = (options, context) => {
      log.push(`create siemForwarder ${JSON.stringify(options)} at ${context.optionsPath}`);
      contexts.push(context);
      return fakeIntegration('siemForwarder', log);
    };
    const c = client(
      { integrations: { siem: siemOptions }, enterprise: { siemIntegration: forwarding } },
      {
        loadIntegrationPackage: loaderOf({
          '@threatlib/siem': { ...fakePackage('siem', log), createSiemForwarderIntegration: forwarder },
        }),
      },
    );
    await c.start();
    expect(log).toEqual([
      `create siem ${JSON.stringify(siemOptions)} at integrations.siem`,
      `create siemForwarder ${JSON.stringify(forwarding)} at enterprise.siemIntegration`,
      'start siem',
      'start siemForwarder',
    ]);
    expect(c.integration('siemForwarder')).toBeDefined();
    // The context reads the client's own configuration, as every integration's does.
    expect(contexts[0]?.client.config.enterprise.siemIntegration).toEqual(forwarding);
    await c.stop();
    expect(log.slice(-2)).toEqual(['stop siemForwarder', 'stop siem']);
  });

  it('is not built while the option is off, nor from integrations.siemForwarder', async () => {
    const asked: string[] = [];
    const off = client(
      { enterprise: { siemIntegration: { ...forwarding, enabled: false } } },
      { loadIntegrationPackage: loaderOf({}, asked) },
    );
    expect(await off.start()).toBeUndefined();
    expect(asked).toEqual([]);
    await off.stop();
    const misplaced = client({ integrations: { siemForwarder: forwarding } }, { loadIntegrationPackage: loaderOf({}) });
    await expect(misplaced.start()).rejects.toThrow(
      /^integrations\.siemForwarder is configured but no integration is registered under "siemForwarder"/,
    );
  });

  it('names the option and the package to install when @threatlib/siem is absent', async () => {
    const c = client({ enterprise: { siemIntegration: forwarding } }, { loadIntegrationPackage: loaderOf({}) });
    await expect(c.start()).rejects.toMatchObject({
      code: 'INTEGRATION_PACKAGE_MISSING',
      integration: 'siemForwarder',
      packages: ['@threatlib/siem'],
      message:
        'enterprise.siemIntegration is configured but @threatlib/siem is not installed: npm install @threatlib/siem',
    });
  });

  it('reports the package’s refusal of the option under enterprise.siemIntegration', async () => {
    const refusing: IntegrationFactory = () => {
      throw new ConfigurationError([{ path: 'format', message: 'expected one of json, cef, leef' }]);
    };
    const c = client(
      { enterprise: { siemIntegration: forwarding } },
      { loadIntegrationPackage: loaderOf({ '@threatlib/siem': { createSiemForwarderIntegration: refusing } }) },
    );
    await expect(c.start()).rejects.toThrow(
      'Configuration invalid: enterprise.siemIntegration.format: expected one of json, cef, leef',
    );
  });

  it('requires an endpoint once enabled', () => {
    expect(() => client({ enterprise: { siemIntegration: { enabled: true } } })).toThrow(
      'Configuration invalid: enterprise.siemIntegration.endpoint: required when enabled',
    );
  });
});
