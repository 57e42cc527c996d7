import { ConfigurationError } from '@threatlib/core';
import { loadOptionalPeers } from '@threatlib/core/integration';
import type { PlatformDefinition } from '../platform.js';
import type { GoogleAuthSdk } from './chronicle-auth.js';
import { credentialSecrets, readChronicleCredential } from './chronicle-credentials.js';
import { CHRONICLE_OPTIONS, CHRONICLE_PORT } from './chronicle-options.js';
import { ChroniclePlatform } from './chronicle-platform.js';

/**
 * Google Security Operations (Chronicle SIEM): platform `siem_e`, beta. Alerts as UDM events through the Chronicle
 * API's events:import, enrichment by UDM search, a service account's OAuth token (google-auth-library); no cases.
 */
export const chronicle: PlatformDefinition<typeof CHRONICLE_OPTIONS, GoogleAuthSdk | undefined> = {
  id: 'siem_e',
  vendor: 'Google SecOps',
  status: 'beta',
  defaultPort: CHRONICLE_PORT,
  optionsShape: CHRONICLE_OPTIONS,
  validate(options) {
    const credential = readChronicleCredential(options);
    return Array.isArray(credential) ? credential : [];
  },
  /** google-auth-library (an optional peer dependency) for a service account; a given access token needs none. */
  loadSdk(options, at) {
    const credential = readChronicleCredential(options);
    if (Array.isArray(credential) || credential.kind !== 'service-account') return undefined;
    const [google] = loadOptionalPeers<[GoogleAuthSdk]>(['google-auth-library'], {
      from: import.meta.url,
      path: at('credentials'),
      neededFor: 'siem_e (Google SecOps) with a service account',
    });
    return google;
  },
  create(settings, google) {
    const credential = readChronicleCredential(settings.options);
    // The connector's constructor already refused these options (validate); this only narrows the type.
    if (Array.isArray(credential)) throw new ConfigurationError(credential);
    for (const secret of credentialSecrets(credential)) settings.secrets.add(secret);
    return new ChroniclePlatform(settings, credential, google);
  },
};
