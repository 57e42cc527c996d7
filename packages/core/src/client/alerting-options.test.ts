// The alerting options: dedupeWindowMs, enabled and minSeverity, and what they refuse.
import { afterEach, describe, expect, it } from 'vitest';
import { SEVERITIES, severityForRiskScore } from '../records/severity.js';
import {
  allAlerts,
  client,
  EVIL,
  flaky,
  stopClientsAndServers,
  WATCHED,
  WORSE,
  watchFile,
} from './alerting-clients.test-suite.js';

afterEach(stopClientsAndServers);

describe('alerting options', () => {
  it('dedupeWindowMs: the same indicator concluded again within the window raises no second alert', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const c = client({ alerting: { dedupeWindowMs: 60_000 } }, { now: () => now });
    await c.correlate(EVIL);
    await c.correlate(EVIL);
    await c.scout(EVIL);
    await c.correlate(WORSE);
    now += 59_999;
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect((await allAlerts(c)).map((a) => a.indicators[0]?.value).sort()).toEqual([EVIL, WORSE]);
    now += 1;
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect((await allAlerts(c)).map((a) => a.indicators[0]?.value).sort()).toEqual([EVIL, EVIL, WORSE]);
  });

  it('dedupeWindowMs defaults to an hour, and 0 raises an alert at every conclusion', async () => {
    expect(client().config.alerting).toEqual({
      enabled: true,
      minSeverity: 'informational',
      dedupeWindowMs: 3_600_000,
    });
    const c = client({ alerting: { dedupeWindowMs: 0 } });
    await c.correlate(EVIL);
    await c.correlate(EVIL);
    await c.alerts.settled();
    expect(await allAlerts(c)).toHaveLength(2);
  });

  it('enabled: false raises no alert for a threat, while alerts.add still stores and delivers', async () => {
    const Steady = flaky(0);
    const c = client({ alerting: { enabled: false } });
    c.registerIntegration('steady', Steady);
    await c.start();
    expect((await c.correlate(EVIL)).isThreat).toBe(true);
    await c.alerts.settled();
    expect(await allAlerts(c)).toEqual([]);
    expect(Steady.calls).toBe(0);
    const alert = await c.alerts.add({ title: 'by hand', severity: 'low' });
    await c.alerts.settled();
    expect(Steady.received.map((a) => a.id)).toEqual([alert.id]);
  });

  it('minSeverity filters automatic alerts by the severity of the risk score', async () => {
    // A list that calls its entries suspicious concludes a threat below critical.
    const lists = [{ name: 'watch', file: watchFile, verdict: 'suspicious' as const }];
    const probe = client({ lists, alerting: { enabled: false } });
    const correlation = await probe.correlate(WATCHED);
    expect(correlation.isThreat).toBe(true);
    const severity = severityForRiskScore(correlation.riskScore);
    const above = SEVERITIES[SEVERITIES.indexOf(severity) + 1];
    expect(above, 'the watched threat must not be critical for this test').toBeDefined();

    const strict = client({ lists, alerting: { minSeverity: above?.toUpperCase() as never } });
    expect(strict.config.alerting.minSeverity).toBe(above);
    await strict.correlate(WATCHED);
    await strict.alerts.settled();
    expect(await allAlerts(strict)).toEqual([]);

    const exact = client({ lists, alerting: { minSeverity: severity } });
    await exact.correlate(WATCHED);
    await exact.alerts.settled();
    expect((await allAlerts(exact)).map((a) => a.severity)).toEqual([severity]);
  });

  it('refuses invalid alerting options, naming each', () => {
    expect(() => client({ alerting: { minSeverity: 'severe' as never } })).toThrow(
      /^Configuration invalid: alerting\.minSeverity: expected one of informational, low, medium, high, critical/,
    );
    expect(() => client({ alerting: { dedupeWindowMs: -1 } })).toThrow(/alerting\.dedupeWindowMs/);
    expect(() => client({ alerting: { enabled: 'yes' as never } })).toThrow(/alerting\.enabled/);
    expect(() => client({ alerting: { dedupe: 5 } as never })).toThrow(/alerting/);
  });
});
