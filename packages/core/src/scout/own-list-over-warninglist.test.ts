import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThreatClient } from '../client/threat-client.js';
import { EXAMPLE_BLOCKLIST, quickStartClient } from './quick-start-client.test-suite.js';

// A built-in warninglist (special-use ranges, public resolvers) answers `clean` with no feed asked. An address the
// user put on their own blocklist (a compromised internal host, a resolver they forbid) must not be cleared by it.
describe("a user's own blocklist is never overruled by a built-in warninglist", () => {
  let dir: string;
  let client: ThreatClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threatlib-own-list-'));
    const own = join(dir, 'internal.txt');
    await writeFile(own, '10.1.2.3\n8.8.4.4\n');
    client = quickStartClient({
      lists: [
        { name: 'example', file: EXAMPLE_BLOCKLIST, format: 'plain', verdict: 'malicious' },
        { name: 'internal', file: own, format: 'plain', verdict: 'malicious' },
      ],
    });
  });
  afterAll(async () => {
    await client.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['10.1.2.3', 'http://10.1.2.3/admin', '8.8.4.4'])(
    '%j, on a warninglist and on the own list, is malicious',
    async (indicator) => {
      const result = await client.correlate(indicator);
      expect(result.verdict).toBe('malicious');
      expect(result.results.find((r) => r.feed === 'list:internal')).toMatchObject({ verdict: 'malicious' });
      expect(result.results.some((r) => r.feed.startsWith('warninglist:'))).toBe(false);
    },
  );

  it('still clears what only a warninglist covers, with no feed asked', async () => {
    const result = await client.correlate('10.9.9.9');
    expect(result.verdict).toBe('clean');
    expect(result.sourcesQueried).toBe(0);
    expect(result.results.map((r) => r.feed)).toEqual([expect.stringMatching(/^warninglist:/)]);
  });
});
