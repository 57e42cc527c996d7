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

describe('scales and units', () => {
  const connector = () => new SIEMConnector({ ...base, platform: 'siem_a', retries: 0 });

  it('refuses a timeout given in seconds, saying what was meant in milliseconds', () => {
    expect(() => new SIEMConnector({ ...base, platform: 'siem_a', timeout: 30 })).toThrow(
      'Configuration invalid: timeout: timeout is in milliseconds, at least 100; got 30 (did you mean 30000?)',
    );
    expect(new SIEMConnector({ ...base, platform: 'siem_a', timeout: 300 }).platform).toBe('siem_a');
  });

  it("refuses an alert or case whose indicator's confidence is a 0..1 score, before anything is sent", async () => {
    await expect(
      connector().sendAlert({
        title: 'Malicious domain detected',
        severity: 'high',
        indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 0.9 }],
      }),
    ).rejects.toThrow('Invalid alert: indicators[0].confidence: confidence is 0..100; got 0.9 (did you mean 90?)');
    await expect(
      connector().createCase({
        title: 'Phishing',
        priority: 'critical',
        indicators: [{ type: 'domain', value: 'malicious-site.com', source: 'feed_urls', confidence: 0.9 }],
      }),
    ).rejects.toThrow('Invalid case: indicators[0].confidence: confidence is 0..100; got 0.9 (did you mean 90?)');
  });
});
