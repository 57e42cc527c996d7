import { CampaignTracker } from '../campaigns/campaign-tracker.js';
import type { Cluster } from '../cluster/cluster.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Correlation } from '../correlation/correlate.js';
import type { EventBus } from '../events/event-bus.js';
import type { ThreatEvents } from '../events/threat-events.js';
import type { Clock } from '../scheduler/clock.js';
import type { ScoutResult } from '../scout/scout-engine.js';

/** Tags threatlib puts on an answer to say what kind of source gave it, not what the indicator is. */
const SOURCE_KIND_TAGS: ReadonlySet<string> = new Set(['local-list', 'warninglist', 'misp-feed']);

/** What a client's campaign tracking needs of the client. */
interface CampaignTrackingDeps {
  config: Pick<ResolvedConfig, 'campaigns'>;
  clock: Clock;
  events: EventBus<ThreatEvents>;
  /** The client's cluster, whose shared campaigns are used while its connection is up. */
  cluster: Cluster | undefined;
}

/**
 * A client's campaign tracking (`campaigns.enabled`): each concluded threat is observed, and `campaignDetected` is
 * emitted for each campaign it formed or grew (see `CampaignTracker`). In a cluster the campaigns are the cluster's,
 * with this client's own tracker counting whenever Redis fails.
 */
export class CampaignTracking {
  readonly #tracker: CampaignTracker;
  readonly #clock: Clock;
  readonly #events: EventBus<ThreatEvents>;
  readonly #cluster: Cluster | undefined;

  /** The tracking `config.campaigns` asks for, or undefined when it is off. */
  static of(deps: CampaignTrackingDeps): CampaignTracking | undefined {
    return deps.config.campaigns.enabled ? new CampaignTracking(deps) : undefined;
  }

  private constructor({ config, clock, events, cluster }: CampaignTrackingDeps) {
    this.#tracker = new CampaignTracker({
      minIndicators: config.campaigns.minIndicators,
      windowMs: config.campaigns.windowMs,
    });
    this.#clock = clock;
    this.#events = events;
    this.#cluster = cluster;
  }

  /** Observes a concluded threat; emits `campaignDetected` for each campaign it formed or grew. */
  track(correlation: Correlation, results: ScoutResult['results']): void {
    const flagging = results.filter((result) => result.verdict === 'malicious' || result.verdict === 'suspicious');
    const observation = {
      indicator: correlation.indicator,
      at: this.#clock.now(),
      sources: flagging.map((result) => result.feed),
      malwareFamilies: flagging.flatMap((result) => result.malwareFamilies),
      // A tag that only says what kind of source answered ('local-list') is shared by every entry of every list: it
      // would make one campaign of everything a blocklist catches.
      tags: flagging.flatMap((result) => result.tags).filter((tag) => !SOURCE_KIND_TAGS.has(tag)),
      references: flagging.flatMap((result) => result.references),
    };
    const shared = this.#cluster?.campaigns;
    if (shared && this.#cluster?.connection.up) {
      // The cluster's campaigns, in the background; Redis failing mid-way, this client's own tracker counts it.
      shared.observe(observation).then(
        (campaigns) => {
          for (const campaign of campaigns) this.#events.emit('campaignDetected', campaign);
        },
        () => {
          for (const campaign of this.#tracker.observe(observation)) this.#events.emit('campaignDetected', campaign);
        },
      );
      return;
    }
    for (const campaign of this.#tracker.observe(observation)) this.#events.emit('campaignDetected', campaign);
  }
}
