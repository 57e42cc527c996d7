// The checks of every-option.test.ts for what a threat raises: `alerting` and `campaigns`.
import { ManualClock } from '../../scheduler/clock.js';
import { answer, configWith, IP } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, effect } from './check.test-suite.js';
import { h, IP2, IP3, START } from './world.test-suite.js';

/** How many alerts the client stored after correlating `IP` `times` times as a threat (risk score 8, "high"). */
async function alertsRaised(config: ThreatConfig, times: number): Promise<number> {
  const { client, probes } = h.client(configWith(config, { strategy: 'aggressive' }), {
    clock: new ManualClock(START),
  });
  for (const probe of probes) probe.answer = () => answer('malicious', 0.8);
  for (let i = 0; i < times; i++) await client.correlate(IP);
  await (client.alerts as { settled?: () => Promise<void> }).settled?.();
  return (await client.alerts.list()).items.length;
}

/** The `campaignDetected` reports of three threats sharing a malware family, `apartMs` apart. */
async function campaignsReported(config: ThreatConfig, apartMs: number): Promise<string[]> {
  const clock = new ManualClock(START);
  const { client, probes } = h.client(configWith(config, { strategy: 'aggressive' }), { clock });
  for (const probe of probes) probe.answer = () => answer('malicious', 0.8, { malwareFamilies: ['Emotet'] });
  const reports: string[] = [];
  client.on('campaignDetected', (campaign) => reports.push(`${campaign.status}:${campaign.indicatorCount}`));
  for (const ip of [IP, IP2, IP3]) {
    await client.correlate(ip);
    await clock.advance(apartMs);
  }
  return reports;
}

/** One check per option of `alerting` and `campaigns`. */
export const ALERTING_CHECKS: Record<string, Check> = {
  'alerting.enabled': effect({ alerting: { enabled: false } }, (c) => alertsRaised(c, 1)),
  'alerting.minSeverity': effect({ alerting: { minSeverity: 'critical' } }, (c) => alertsRaised(c, 1)),
  'alerting.dedupeWindowMs': effect({ alerting: { dedupeWindowMs: 0 } }, (c) => alertsRaised(c, 2)),

  'campaigns.enabled': effect({ campaigns: { enabled: false } }, (c) => campaignsReported(c, 0)),
  'campaigns.minIndicators': effect({ campaigns: { minIndicators: 2 } }, (c) => campaignsReported(c, 0)),
  'campaigns.windowMs': effect({ campaigns: { windowMs: 60_000 } }, (c) => campaignsReported(c, 120_000)),
};
