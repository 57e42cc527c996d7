import { ConfigurationError } from '../errors/configuration-error.js';
import { RuntimeUnsupportedError } from '../errors/runtime-unsupported-error.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';
import type { AlertChannel } from './alert-channel.js';
import { alertEmail, type MonitoringAlert } from './monitoring-alert.js';

/** The parts of a nodemailer transporter this channel uses. */
interface Mailer {
  sendMail(message: { from: string; to: string[]; subject: string; text: string }): Promise<unknown>;
  close(options?: { force?: boolean }): void;
}

interface MailerModule {
  createTransport(options: object): Mailer;
}

/** Options of {@link EmailAlertChannel}: `enterprise.monitoring.alerts.email` and the security options it obeys. */
export interface EmailAlertChannelOptions {
  from: string;
  to: string[];
  smtp: { host: string; port: number; secure: boolean; user?: string | undefined; password?: string | undefined };
  /** Refuse to send without TLS (STARTTLS on a non-`secure` port); set when a password would otherwise go in clear. */
  requireTLS: boolean;
  /** Check the SMTP server's certificate (`security.validateCertificates`). */
  validateCertificates: boolean;
  /** Loads nodemailer; default `require('nodemailer')`. Tests pass their own to see a missing package. */
  loadMailer?: () => unknown;
}

const CONFIG_PATH = 'enterprise.monitoring.alerts.email';
/** SMTP waits, in ms: an alert is not worth holding `client.stop()` for minutes (nodemailer's defaults). */
const CONNECTION_TIMEOUT = 10_000;
const GREETING_TIMEOUT = 10_000;
const SOCKET_TIMEOUT = 30_000;
/** A pooled connection left idle closes after this long; alerts are rare, so one is rarely reused anyway. */
const IDLE_TIMEOUT = 5_000;

/**
 * `require('nodemailer')`, with `createRequire` taken through `process.getBuiltinModule` so that a page that imports
 * the client loads; there, e-mail alerts are refused.
 */
function loadNodemailer(): unknown {
  const module = nodeBuiltin<{ createRequire(url: string): (id: string) => unknown }>('node:module');
  if (!module) {
    throw new RuntimeUnsupportedError(
      'e-mail alerts',
      'enterprise.monitoring.alerts.email is not available in the browser: it needs Node.js (an SMTP connection); ' +
        'use enterprise.monitoring.alerts.webhook',
    );
  }
  return module.createRequire(import.meta.url)('nodemailer');
}

/**
 * Sends monitoring alerts as plain-text e-mail through nodemailer, the long-maintained SMTP client. nodemailer is an
 * optional peer dependency loaded when e-mail alerts are configured (the constructor), so a client without them
 * never loads it, and a missing package is a configuration error at construction rather than a lost alert later.
 * The transport is a pool of one connection, opened on the first alert: `close()` can then end a delivery a stalled
 * server holds, so `client.stop()` leaves no socket behind.
 */
export class EmailAlertChannel implements AlertChannel {
  readonly name = 'email';
  readonly #options: EmailAlertChannelOptions;
  readonly #mailer: MailerModule;
  #transport: Mailer | undefined;

  /**
   * @throws {ConfigurationError} when the `nodemailer` package cannot be loaded.
   * @throws {RuntimeUnsupportedError} in a page (SMTP needs Node.js's sockets).
   */
  constructor(options: EmailAlertChannelOptions) {
    this.#options = options;
    let loaded: unknown;
    try {
      loaded = (options.loadMailer ?? loadNodemailer)();
    } catch (error) {
      if (RuntimeUnsupportedError.isInstance(error)) throw error;
      throw new ConfigurationError(
        [{ path: CONFIG_PATH, message: "e-mail alerts need the 'nodemailer' package: npm install nodemailer" }],
        { cause: error },
      );
    }
    const module = loaded as Partial<MailerModule> | undefined;
    if (typeof module?.createTransport !== 'function') {
      throw new ConfigurationError([
        { path: CONFIG_PATH, message: "e-mail alerts need the 'nodemailer' package (version 10 or later)" },
      ]);
    }
    this.#mailer = module as MailerModule;
  }

  async send(alert: MonitoringAlert): Promise<void> {
    const { subject, text } = alertEmail(alert);
    await this.#transportNow().sendMail({ from: this.#options.from, to: this.#options.to, subject, text });
  }

  async close(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    transport?.close({ force: true });
  }

  #transportNow(): Mailer {
    if (!this.#transport) {
      const { smtp, requireTLS, validateCertificates } = this.#options;
      this.#transport = this.#mailer.createTransport({
        pool: true,
        maxConnections: 1,
        idleTimeout: IDLE_TIMEOUT,
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        requireTLS,
        ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
        tls: { rejectUnauthorized: validateCertificates },
        connectionTimeout: CONNECTION_TIMEOUT,
        greetingTimeout: GREETING_TIMEOUT,
        socketTimeout: SOCKET_TIMEOUT,
        // Alerts are text threatlib writes: never let a message read a file or fetch a URL.
        disableFileAccess: true,
        disableUrlAccess: true,
        logger: false,
      });
    }
    return this.#transport;
  }
}
