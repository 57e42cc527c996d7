// The checks of every-option.test.ts for `events`: each handler is called when its event happens.
import type { ThreatClient } from '../../client/threat-client.js';
import { answer, IP, type ProbeFeed } from '../option-checks.test-suite.js';
import { type Check, effect } from './check.test-suite.js';
import { eventsSeen, failing, handler, IP2, IP3, seen, vaultSees } from './world.test-suite.js';

/** One check per option of `events`. */
export const EVENT_CHECKS: Record<string, Check> = {
  ...Object.fromEntries(
    (
      [
        ['threatFound', { strategy: 'aggressive' }, async (client: ThreatClient) => client.correlate(IP)],
        [
          'feedError',
          {},
          async (client: ThreatClient, probe: ProbeFeed) => {
            failing('error', { message: 'unavailable', statusCode: 503 })(probe);
            await client.scout(IP);
          },
        ],
        ['requestComplete', {}, async (client: ThreatClient) => client.scout(IP)],
        [
          'rateLimited',
          {},
          async (client: ThreatClient, probe: ProbeFeed) => {
            failing('rate_limited', { message: 'slow down', statusCode: 429 })(probe);
            await client.scout(IP);
          },
        ],
        [
          'cacheEvicted',
          { caching: { enabled: true, maxSize: 1 } },
          async (client: ThreatClient) => {
            await client.scout(IP);
            await client.scout(IP2);
            await client.scout(IP3);
          },
        ],
        ['audit', { security: { enableAuditLog: true } }, async (client: ThreatClient) => client.updateConcurrency(4)],
        [
          'campaignDetected',
          { strategy: 'aggressive' },
          async (client: ThreatClient, probe: ProbeFeed) => {
            probe.answer = () => answer('malicious', 0.8, { malwareFamilies: ['Emotet'] });
            for (const ip of [IP, IP2, IP3]) await client.correlate(ip);
          },
        ],
      ] as const
    ).map(([event, without, act]) => [
      `events.${event}`,
      effect({ events: { [event]: handler(event) } }, (c) => eventsSeen(c, act), without),
    ]),
  ),
  'events.vaultLocked': effect({ events: { vaultLocked: handler('vaultLocked') } }, async (c) => {
    seen.length = 0;
    await vaultSees(c, (vault) => vault.lock('manual'));
    return [...seen];
  }),
};
