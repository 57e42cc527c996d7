// The checks of every-option.test.ts for `enterprise` (stream processing, SIEM forwarding, monitoring and its
// alerts) and `integrations`.
import { createClientMetrics } from '../../metrics/client-metrics.js';
import { ManualClock } from '../../scheduler/clock.js';
import { configWith, IP, until } from '../option-checks.test-suite.js';
import type { ThreatConfig } from '../schema.js';
import { type Check, type Effect, effect, elsewhere, type Fragment, resolve } from './check.test-suite.js';
import { dead, failing, h, hook, IP2, START, smtp } from './world.test-suite.js';

/** What the monitoring alerts did after the probe's key was refused twice, a second apart. */
async function alertsAfterRefusals(config: ThreatConfig) {
  hook.requests.length = 0;
  smtp.mails.length = 0;
  const clock = new ManualClock(START);
  const { client, probe } = h.client(config, { clock });
  failing('auth_error', { message: 'key refused', statusCode: 401 })(probe);
  await client.scout(IP);
  await clock.advance(1000);
  await client.scout(IP2);
  const stats = () => client.monitoringAlertStats();
  const tried = () => Object.values(stats().channels).reduce((n, c) => n + c.sent + c.failed, 0);
  await until(() => tried() >= stats().raised, 10_000);
  return {
    raised: stats().raised,
    suppressed: stats().suppressed,
    channels: stats().channels,
    webhook: hook.requests.map((r) => ({ url: r.url, probe: r.headers['x-probe'] })),
    mails: smtp.mails.map((m) => ({ ...m })),
  };
}

/** Monitoring alert e-mail checks: one refused key, over SMTP to the recorder. */
function emailAlert(change: Fragment, without: Fragment = {}): Effect {
  const email = () => ({
    enterprise: {
      monitoring: {
        alerts: {
          email: {
            from: 'threatlib@alerts.test',
            to: ['soc@alerts.test'],
            smtp: { host: '127.0.0.1', port: smtp.port },
          },
        },
      },
    },
  });
  return effect(change, alertsAfterRefusals, () => configWith(email(), resolve(without)));
}

/** A webhook alert channel on the recorder. */
const ALERT_HOOK = () => ({ enterprise: { monitoring: { alerts: { webhook: { url: `${hook.url}/alerts` } } } } });

/** One check per option of `enterprise` and `integrations`. */
export const ENTERPRISE_CHECKS: Record<string, Check> = {
  ...Object.fromEntries(
    (
      [
        ['enabled', 'enterprise: { siemIntegration: { enabled: true'],
        ['endpoint', 'endpoint: `syslog+tls://127.0.0.1:'],
        ['format', "format: 'leef'"],
        ['leef.version', "leef: { version: '1.0' }"],
        ['leef.delimiter', "delimiter: '~'"],
        ['headers', 'headers: { authorization:'],
        ['tls.ca', 'tls: { ca: pki.ca }'],
        ['tls.rejectUnauthorized', 'rejectUnauthorized: false'],
        ['tls.servername', "servername: 'localhost'"],
      ] as const
    ).map(([option, mention]) => [
      `enterprise.siemIntegration.${option}`,
      elsewhere('packages/siem/src/forwarder/configured-forwarder.test.ts', mention),
    ]),
  ),

  'enterprise.streamProcessing.enabled': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'enterprise: { streamProcessing: { enabled: true',
  ),
  'enterprise.streamProcessing.batchSize': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'batchSize: 250',
  ),
  'enterprise.streamProcessing.flushInterval': elsewhere(
    'packages/queue/src/integration/queue-integration.test.ts',
    'flushInterval: 50',
  ),
  'enterprise.monitoring.healthChecks': elsewhere(
    'packages/server/src/health/client-health.test.ts',
    'enterprise: { monitoring: { healthChecks: false } }',
  ),
  'enterprise.monitoring.metrics': effect(
    { enterprise: { monitoring: { metrics: false } } },
    async (c) => createClientMetrics(h.client(c).client).getMetricsAsArray().length > 0,
  ),
  'enterprise.monitoring.alerts.cooldownMs': effect(
    { enterprise: { monitoring: { alerts: { cooldownMs: 500 } } } },
    async (c) => {
      const { raised, suppressed } = await alertsAfterRefusals(c);
      return { raised, suppressed };
    },
    ALERT_HOOK,
  ),
  'enterprise.monitoring.alerts.webhook.url': effect(
    () => ({ enterprise: { monitoring: { alerts: { webhook: { url: `${hook.url}/other-alerts` } } } } }),
    async (c) => (await alertsAfterRefusals(c)).webhook,
    ALERT_HOOK,
  ),
  'enterprise.monitoring.alerts.webhook.headers': effect(
    { enterprise: { monitoring: { alerts: { webhook: { headers: { 'x-probe': 'on' } } } } } },
    async (c) => (await alertsAfterRefusals(c)).webhook,
    ALERT_HOOK,
  ),
  // The address form: alerts to and from it through the local relay (localhost:25, where nothing listens here).
  'enterprise.monitoring.alerts.email': effect(
    { enterprise: { monitoring: { alerts: { email: 'soc@alerts.test' } } } },
    async (c) => Object.keys((await alertsAfterRefusals(c)).channels),
  ),
  'enterprise.monitoring.alerts.email.from': emailAlert({
    enterprise: { monitoring: { alerts: { email: { from: 'someone-else@alerts.test' } } } },
  }),
  'enterprise.monitoring.alerts.email.to': emailAlert({
    enterprise: { monitoring: { alerts: { email: { to: ['oncall@alerts.test', 'soc@alerts.test'] } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.host': emailAlert({
    enterprise: { monitoring: { alerts: { email: { smtp: { host: '127.0.0.2' } } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.port': emailAlert(() => ({
    enterprise: { monitoring: { alerts: { email: { smtp: { port: dead } } } } },
  })),
  'enterprise.monitoring.alerts.email.smtp.secure': emailAlert({
    enterprise: { monitoring: { alerts: { email: { smtp: { secure: true } } } } },
  }),
  'enterprise.monitoring.alerts.email.smtp.user': emailAlert(
    { enterprise: { monitoring: { alerts: { email: { smtp: { user: 'alerts' } } } } } },
    { enterprise: { monitoring: { alerts: { email: { smtp: { password: 'smtp-password' } } } } } },
  ),
  'enterprise.monitoring.alerts.email.smtp.password': emailAlert(
    { enterprise: { monitoring: { alerts: { email: { smtp: { password: 'another-password' } } } } } },
    { enterprise: { monitoring: { alerts: { email: { smtp: { user: 'alerts', password: 'smtp-password' } } } } } },
  ),

  integrations: elsewhere('packages/core/src/client/integrations.test.ts', 'integrations: {'),
};
