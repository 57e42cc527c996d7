import { parseIndicator, ThreatClient } from '@threatlib/core';

const client = new ThreatClient({
  sources: ['feed_urls', 'feed_otx'],
  apiKeys: { feed_otx: process.env.OTX_KEY },
  events: { threatFound: (threat) => console.log('threat', threat.indicator, threat.severity) },
});
parseIndicator('hxxps://evil[.]example[.]com/payload'); // { type: 'url', value: 'https://evil.example.com/payload', ... }
await client.start();
await client.stop(); // releases every socket and timer
