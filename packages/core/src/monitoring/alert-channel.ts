import type { MonitoringAlert } from './monitoring-alert.js';

/** Somewhere monitoring alerts go: e-mail, a webhook. */
export interface AlertChannel {
  /** Channel name for counters and log lines (`email`, `webhook`). */
  readonly name: string;
  /** Delivers one alert; rejects with an error whose message holds no secret when it could not. */
  send(alert: MonitoringAlert): Promise<void>;
  /**
   * Releases connections; in-flight deliveries are given up. The channel may be used again afterwards (it opens new
   * connections), as a client may scout again after `stop()`.
   */
  close(): Promise<void>;
}
