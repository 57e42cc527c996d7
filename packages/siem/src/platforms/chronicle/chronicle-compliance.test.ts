import { describe } from 'vitest';
import { runSiemComplianceSuite } from '../../compliance/siem-compliance.test-suite.js';
import { chronicleHarness } from '../../test-support/chronicle-harness.js';

describe('siem_e (Google SecOps, beta) on the Chronicle emulator, as a service account', () => {
  runSiemComplianceSuite(() => chronicleHarness(), { cases: 'unsupported' });
});

describe('siem_e with the documented {username, password} form: the account’s e-mail and private key', () => {
  runSiemComplianceSuite(
    async () => {
      const harness = await chronicleHarness();
      const { key, emulator } = harness;
      const tokenUri = key.token_uri;
      return {
        ...harness,
        options: {
          ...harness.options,
          credentials: { username: key.client_email, password: key.private_key },
          tokenUri,
        },
        badCredentials: {
          credentials: { username: 'someone-else@threatlib-test.iam.gserviceaccount.com', password: key.private_key },
        },
        down: { ...harness.down, tokenUri: `https://127.0.0.1:${harness.down.port}/oauth2/v4/token` },
        get secrets() {
          return [key.private_key, ...emulator.chronicle.oauth.issued];
        },
      };
    },
    { cases: 'unsupported' },
  );
});
