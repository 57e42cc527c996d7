import type { AlertStore } from '../alerts/alert-store.js';
import type { CacheStore } from '../cache/cache-store.js';
import type { Cluster } from '../cluster/cluster.js';
import { IntegrationError } from '../errors/integration-error.js';
import { closeLogger } from '../logging/create-logger.js';
import type { Logger } from '../logging/logger.js';
import type { MonitoringAlerter } from '../monitoring/monitoring-alerter.js';
import type { FeedScheduler } from '../scheduler/feed-scheduler.js';
import type { Vault } from '../vault/vault.js';
import type { ClientAlerting } from './alerting.js';
import type { ClientHttp } from './client-http.js';
import type { ClientLists } from './client-lists.js';
import type { ClientState } from './client-options.js';
import type { ClientIntegrations } from './integrations.js';

/** What a client's lifecycle starts and stops. */
interface ClientLifecycleDeps {
  logger: Logger;
  integrations: ClientIntegrations;
  alerting: ClientAlerting;
  /** The alert store the client was made with, used again once the integrations stop. */
  alertStore: AlertStore;
  lists: ClientLists;
  cluster: Cluster | undefined;
  cache: CacheStore | undefined;
  scheduler: FeedScheduler;
  http: ClientHttp;
  alerter: MonitoringAlerter | undefined;
  vault: Vault | undefined;
}

/**
 * A client's lifecycle: `start()` loads its lists, opens its cache and cluster and starts its integrations; `stop()`
 * undoes it all, in reverse, and locks the vault.
 */
export class ClientLifecycle {
  readonly #deps: ClientLifecycleDeps;
  #state: ClientState = 'idle';
  /** While `start()` runs: resolves when it has ended, either way (alerts raised meanwhile wait for it). */
  #starting: Promise<void> | undefined;
  /** The logger the client made (not one it was given): its transports are closed by `stop()`. */
  ownLogger: Logger | undefined;

  constructor(deps: ClientLifecycleDeps, ownLogger: Logger | undefined) {
    this.#deps = deps;
    this.ownLogger = ownLogger;
  }

  /** Where the client is in its lifecycle. */
  get state(): ClientState {
    return this.#state;
  }

  /** Resolves once a `start()` under way has ended, either way (at once when none is). */
  started(): Promise<void> {
    return this.#starting ?? Promise.resolve();
  }

  /** See `ThreatClient.start`. */
  async start(): Promise<void> {
    if (this.#state === 'running') return;
    if (this.#state !== 'idle') throw new Error(`ThreatClient cannot start while ${this.#state}`);
    this.#state = 'starting';
    let started!: () => void;
    this.#starting = new Promise((resolve) => {
      started = resolve;
    });
    try {
      await this.#start();
    } finally {
      this.#starting = undefined;
      started();
    }
  }

  async #start(): Promise<void> {
    const { lists, cluster, cache, integrations, alerting, logger } = this.#deps;
    try {
      // Load lists and open the cache now, so a bad list file or an unreachable cache fails start(), not a scout.
      await lists.prepare();
      // Redis unreachable does not fail start: the client runs degraded (clusterDegraded) and keeps trying.
      await cluster?.start();
      await cache?.start?.();
    } catch (error) {
      this.#state = 'idle';
      throw error;
    }
    let started: string[];
    try {
      started = await integrations.start();
    } catch (error) {
      await this.#closeResources();
      this.#state = 'idle';
      throw error;
    }
    // A storage integration's alert store keeps the alerts while it runs, those kept so far included.
    const keeper = integrations.started().find((entry) => entry.instance.alertStore !== undefined);
    if (keeper?.instance.alertStore) {
      try {
        await alerting.useStore(keeper.instance.alertStore, { copy: true });
      } catch (error) {
        await integrations.stop();
        await this.#closeResources();
        this.#state = 'idle';
        throw new IntegrationError(
          keeper.name,
          'start',
          `Integration "${keeper.name}" started but the alerts could not be moved to its alert store: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        );
      }
    }
    // TAXII lists load their state (from an integration that keeps list state, else their file) and poll once, then
    // every interval. A poll that fails is logged and kept in listStatus(): it never fails start().
    const stateKeeper = integrations.started().find((entry) => typeof entry.instance.listStateStore === 'function');
    for (const list of await lists.taxiiLists()) {
      await list.ready(stateKeeper?.instance.listStateStore?.(`list:${list.name}`));
      list.start();
    }
    this.#state = 'running';
    // Deliveries a stopped (or crashed) run left pending go out again, in the background, now their integrations run.
    alerting.resumePending();
    logger.info({ integrations: started }, 'threatlib client started');
  }

  /** See `ThreatClient.stop`. */
  async stop(): Promise<void> {
    if (this.#state === 'stopping') return;
    this.#state = 'stopping';
    const { alerting, alertStore, lists, integrations, vault } = this.#deps;
    // Deliveries under way get a grace period while their integrations are still up; any cut short stays recorded.
    await alerting.stop();
    await alerting.useStore(alertStore);
    // TAXII lists save their state before the integrations stop: one may be where that state is kept.
    await Promise.all((await lists.taxiiLists()).map((list) => list.close()));
    const failures = await integrations.stop();
    await this.#closeResources();
    vault?.lock('stop');
    // Last: the lines above reach the transports before their sockets, timers and files close.
    await closeLogger(this.ownLogger);
    this.#state = 'idle';
    if (failures.length > 0) {
      const names = failures.map((f) => f.name);
      throw new IntegrationError(
        names.join(', '),
        'stop',
        `Integration${names.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')} failed to stop cleanly: ${failures
          .map((f) => (f.error as Error)?.message ?? String(f.error))
          .join('; ')}`,
        { cause: failures.length === 1 ? failures[0]?.error : new AggregateError(failures.map((f) => f.error)) },
      );
    }
  }

  async #closeResources(): Promise<void> {
    const { scheduler, lists, http, cache, cluster, alerter } = this.#deps;
    scheduler.close();
    // Lists that poll (MISP feeds) stop; the next use loads the lists again.
    await lists.close();
    await http.close();
    await cache?.close();
    await cluster?.close();
    // Alert deliveries under way get a moment to finish; SMTP and webhook connections are closed either way.
    await alerter?.close();
  }
}
