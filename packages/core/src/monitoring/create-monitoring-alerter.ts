import type { ResolvedConfig } from '../config/schema.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../scheduler/clock.js';
import { checkEndpoint } from '../security/endpoint-policy.js';
import type { AlertChannel } from './alert-channel.js';
import { EmailAlertChannel } from './email-channel.js';
import { MonitoringAlerter } from './monitoring-alerter.js';
import { configSecrets } from './secret-scrubber.js';
import { WebhookAlertChannel } from './webhook-channel.js';

/**
 * The alerter `enterprise.monitoring.alerts` describes, or undefined when it names no channel. The security options
 * apply: with `security.enforceHttps` the webhook must be `https:` and an SMTP password is only sent over TLS
 * (STARTTLS required on a non-`secure` port); `security.validateCertificates` covers both.
 *
 * @throws {ConfigurationError} when e-mail alerts are configured and nodemailer is not installed.
 * @throws {InsecureEndpointError} when the webhook URL is plain HTTP while `security.enforceHttps` is on.
 */
export function createMonitoringAlerter(
  config: ResolvedConfig,
  deps: { clock: Clock; logger: Logger; feedName?: (feed: string) => string | undefined },
): MonitoringAlerter | undefined {
  const { alerts } = config.enterprise.monitoring;
  const { security } = config;
  const channels: AlertChannel[] = [];
  if (alerts.email) {
    const { smtp } = alerts.email;
    channels.push(
      new EmailAlertChannel({
        from: alerts.email.from,
        to: alerts.email.to,
        smtp,
        requireTLS: security.enforceHttps && !smtp.secure && smtp.password !== undefined,
        validateCertificates: security.validateCertificates,
      }),
    );
  }
  if (alerts.webhook) {
    checkEndpoint(alerts.webhook.url, 'enterprise.monitoring.alerts.webhook.url', security);
    channels.push(
      new WebhookAlertChannel({
        url: alerts.webhook.url,
        headers: alerts.webhook.headers,
        validateCertificates: security.validateCertificates,
      }),
    );
  }
  if (channels.length === 0) return undefined;
  return new MonitoringAlerter({
    channels,
    cooldownMs: alerts.cooldownMs,
    clock: deps.clock,
    logger: deps.logger,
    secrets: configSecrets(config),
    ...(deps.feedName ? { feedName: deps.feedName } : {}),
  });
}
