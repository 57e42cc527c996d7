import {
  type Alert,
  type Correlation,
  type Logger,
  type StixCorrelationInput,
  THREATLIB_STIX_IDENTITY,
  type ThreatClient,
  toStixBundle,
} from '@threatlib/core';
import type { TaxiiObjectStore } from './object-store.js';

const VERDICTS = new Set(['malicious', 'suspicious', 'clean', 'unknown']);
/** Fields that change with every conclusion: a version differing only in them is no news. */
const TIMES = new Set(['created', 'modified', 'valid_from']);

/**
 * Fills the indicators collection with the threats a client concludes: on start, those its alert store holds (the
 * alerts the client raised itself, `source: 'threatlib'`, up to the collection's size), then each threat as it is
 * concluded (the `correlated` event). Each is the STIX indicator `toStixBundle` writes, with threatlib's identity in
 * the collection beside them; a threat concluded again with the same verdict, confidence, labels and references adds
 * no version, one that changed adds a newer version (same id, `created` kept).
 */
export class ConcludedThreats {
  readonly #store: TaxiiObjectStore;
  readonly #client: ThreatClient;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #backfill: number;
  readonly #onCorrelated = (correlation: Correlation) => {
    if (correlation.isThreat) this.#add(correlation);
  };

  constructor(options: {
    store: TaxiiObjectStore;
    client: ThreatClient;
    logger: Logger;
    now: () => number;
    /** Most alerts read back from the alert store at start. */
    backfill: number;
  }) {
    this.#store = options.store;
    this.#client = options.client;
    this.#logger = options.logger;
    this.#now = options.now;
    this.#backfill = options.backfill;
  }

  /** Adds threatlib's identity and the threats the alert store holds, then each one concluded from now on. */
  async start(): Promise<void> {
    this.#store.add({ ...THREATLIB_STIX_IDENTITY });
    this.#client.events.on('correlated', this.#onCorrelated);
    const alerts: Alert[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await this.#client.alerts.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
        alerts.push(...page.items.filter((alert) => alert.source === 'threatlib'));
        cursor = page.nextCursor;
      } while (cursor !== undefined && alerts.length < this.#backfill);
    } catch (error) {
      this.#logger.warn(
        { err: error },
        'TAXII: the alert store could not be read; the indicators collection starts empty',
      );
    }
    // The store lists the newest first: the oldest go in first, so date_added follows the order they were concluded.
    for (const alert of alerts.slice(0, this.#backfill).reverse()) {
      const input = fromAlert(alert);
      if (input) this.#add(input);
    }
  }

  stop(): void {
    this.#client.events.off('correlated', this.#onCorrelated);
  }

  #add(correlation: StixCorrelationInput): void {
    let indicator: Record<string, unknown>;
    try {
      indicator = toStixBundle([correlation], { now: this.#now() }).objects[1] as unknown as Record<string, unknown>;
    } catch (error) {
      this.#logger.debug({ err: error }, 'TAXII: a concluded threat could not be written as a STIX indicator');
      return;
    }
    const latest = this.#store.versionsOf(indicator.id as string).at(-1);
    if (latest !== undefined) {
      const previous = JSON.parse(latest.json) as Record<string, unknown>;
      if (sameContent(previous, indicator)) return;
      indicator.created = previous.created;
      // A newer version needs a later `modified`, even when two conclusions fall in one millisecond.
      if (String(indicator.modified) <= String(previous.modified)) {
        const later = new Date(Date.parse(String(previous.modified)) + 1).toISOString();
        indicator.modified = later;
      }
    }
    this.#store.add(indicator);
  }
}

/** The correlation an alert the client raised records (see `threatAlertFor`), or undefined for another alert. */
function fromAlert(alert: Alert): StixCorrelationInput | undefined {
  const [indicator] = alert.indicators;
  if (indicator === undefined) return undefined;
  const verdict = alert.metadata?.verdict;
  const said =
    typeof verdict === 'string' && VERDICTS.has(verdict) ? (verdict as StixCorrelationInput['verdict']) : 'malicious';
  return {
    indicator: indicator.value,
    type: indicator.type,
    confidence: indicator.confidence ?? 100,
    verdict: said,
    startedAt: alert.timestamp,
    contributions: (indicator.sources ?? []).map((feed) => ({ feed, status: 'ok', verdict: said })),
  };
}

function sameContent(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const strip = (object: Record<string, unknown>) =>
    JSON.stringify(Object.fromEntries(Object.entries(object).filter(([key]) => !TIMES.has(key))));
  return strip(a) === strip(b);
}
