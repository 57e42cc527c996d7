import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignDetectedEvent } from '../campaigns/campaign.js';
import { silentLogger } from '../logging/logger.js';
import { ThreatClient } from './threat-client.js';

// Every answer of a local list carries the tag 'local-list'. Taken as evidence, it made one "campaign" of everything
// a blocklist caught, grown by every hit.
describe('campaigns and local lists', () => {
  let dir: string;
  let client: ThreatClient;
  const detected: CampaignDetectedEvent[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-campaign-lists-'));
    const file = join(dir, 'block.txt');
    await writeFile(file, Array.from({ length: 6 }, (_, i) => `bad${i}.threatlib-test.net`).join('\n'));
    client = new ThreatClient(
      { sources: [], strategy: 'aggressive', lists: [{ name: 'block', file }], alerting: { enabled: false } },
      { env: false, logger: silentLogger },
    );
    client.events.on('campaignDetected', (campaign) => {
      detected.push(campaign);
    });
  });
  afterAll(async () => {
    await client.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('does not make a campaign of indicators that share nothing but being on the same kind of source', async () => {
    for (let i = 0; i < 6; i++) expect((await client.correlate(`bad${i}.threatlib-test.net`)).isThreat).toBe(true);
    expect(detected).toEqual([]);
  });
});
