import { describe, expect, it } from 'vitest';
import { SIEMConnector } from './siem-connector.js';

const base = { host: 'siem.example.com', port: 8089, credentials: { token: 'tok-123456' } };

describe('SIEMConnector options', () => {
  it('refuses an unknown platform, naming the ones it takes', () => {
    expect(() => new SIEMConnector({ ...base, platform: 'splunk' as never })).toThrow(
      /Configuration invalid: platform: expected one of siem_a, siem_b, siem_c, siem_d, siem_e/,
    );
  });
});
