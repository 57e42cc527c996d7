// Uses @threatlib/core as an installed package (its built dist, through its exports map), the way a user or a
// third-party plugin does; `pnpm typecheck` checks the type assertions below.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Alert, ConfigurationError, type IndicatorRef, silentLogger, ThreatClient } from '@threatlib/core';
import type { Integration, IntegrationContext } from '@threatlib/core/integration';
import { describe, expect, expectTypeOf, it } from 'vitest';

class TicketPlugin implements Integration {
  readonly tickets: string[] = [];
  constructor(
    readonly options: { queue: string },
    readonly context: IntegrationContext,
  ) {}
  async sendAlert(alert: Alert) {
    this.tickets.push(`${this.options.queue}:${alert.title}`);
    return { ticket: this.tickets.length };
  }
  async enrichIndicator(indicator: IndicatorRef) {
    return { seenInTickets: this.tickets.some((t) => t.includes(indicator.value)) };
  }
}

declare module '@threatlib/core' {
  interface IntegrationRegistry {
    tickets: TicketPlugin;
  }
}

describe('@threatlib/core as published', () => {
  it('types integrations through the registry a plugin augments', async () => {
    const client = new ThreatClient({ sources: ['feed_urls'] }, { env: false, logger: silentLogger });
    const registered = client.registerIntegration('tickets', TicketPlugin, { queue: 'soc' });
    expectTypeOf(registered).toEqualTypeOf<TicketPlugin>();
    const found = client.integration('tickets');
    expectTypeOf(found).toEqualTypeOf<TicketPlugin | undefined>();
    await client.start();
    const alert = await client.alerts.add({ title: 'beacon to 198.51.100.4', severity: 'medium' });
    // The client delivers an added alert to every started integration by itself.
    await client.alerts.settled();
    expect(found?.tickets).toEqual(['soc:beacon to 198.51.100.4']);
    expect((await client.alerts.get(alert.id))?.deliveries).toEqual([
      expect.objectContaining({ integration: 'tickets', status: 'delivered', result: { ticket: 1 } }),
    ]);
    expect(await found?.sendAlert(alert)).toEqual({ ticket: 2 });
    expect(await found?.enrichIndicator({ type: 'ip', value: '198.51.100.4' })).toEqual({ seenInTickets: true });
    await client.stop();
  });

  it('throws errors recognisable across package copies', () => {
    let error: unknown;
    try {
      new ThreatClient({} as never, { env: false });
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Configuration invalid: sources: /);
  });

  it('runs the quick-start main job: embedded defaults, no keys, no network', () => {
    const bin = fileURLToPath(import.meta.resolve('@threatlib/core/package.json')).replace(
      /package\.json$/,
      'bin/threatlib-config.js',
    );
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
    const out = execFileSync(process.execPath, [bin, 'show'], { env, encoding: 'utf8' });
    expect(out).toContain('Configuration: embedded defaults: valid');
    expect(out).toMatch(/feed_urls\s+ready/);
    expect(out).toMatch(/feed_scan\s+not_configured/);
  });
});
