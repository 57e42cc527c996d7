import { describe, expect, it } from 'vitest';
import { WebhooksIntegrationOptionsSchema } from './webhooks-integration.js';

describe('integrations.webhooks options', () => {
  // Issue 21, finding 4: the flat `incoming: {port, path, ...}` form was split by assignment, so a "__proto__" key
  // (an ordinary key in parsed JSON) became a prototype and disappeared from the options without a word.
  it('a "__proto__" key beside the flat server options is refused as the unknown option it is', () => {
    const options = JSON.parse(
      '{"incoming":{"port":8080,"path":"/webhooks","authentication":{"type":"hmac","secret":"a shared secret of enough bytes"},"__proto__":{"host":"0.0.0.0"}}}',
    );
    const result = WebhooksIntegrationOptionsSchema.safeParse(options);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain('incoming');
    expect(JSON.stringify(result.error?.issues)).toContain('__proto__');
  });
});
