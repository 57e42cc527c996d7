import { ConfigurationError } from '@threatlib/core';
import type { PlatformDefinition } from '../platform.js';
import { credentialSecrets, readChronicleCredential } from './chronicle-credentials.js';
import { CHRONICLE_OPTIONS, CHRONICLE_PORT } from './chronicle-options.js';
import { ChroniclePlatform } from './chronicle-platform.js';

/**
 * Google Security Operations (Chronicle SIEM): platform `siem_e`, beta. Alerts as UDM events through the Chronicle
 * API's events:import, enrichment by UDM search, a service account's OAuth token (google-auth-library); no cases.
 */
export const chronicle: PlatformDefinition<typeof CHRONICLE_OPTIONS> = {
  id: 'siem_e',
  vendor: 'Google SecOps',
  status: 'beta',
  defaultPort: CHRONICLE_PORT,
  optionsShape: CHRONICLE_OPTIONS,
  validate(options) {
    const credential = readChronicleCredential(options);
    return Array.isArray(credential) ? credential : [];
  },
  create(settings) {
    const credential = readChronicleCredential(settings.options);
    // The connector's constructor already refused these options (validate); this only narrows the type.
    if (Array.isArray(credential)) throw new ConfigurationError(credential);
    for (const secret of credentialSecrets(credential)) settings.secrets.add(secret);
    return new ChroniclePlatform(settings, credential);
  },
};
