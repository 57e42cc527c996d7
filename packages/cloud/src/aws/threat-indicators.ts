import type { Alert, IndicatorType } from '@threatlib/core';
import type { AlertStore } from '@threatlib/core/integration';

/** An indicator threatlib currently holds to be a threat, as a threat list carries it. */
export interface ThreatIndicator {
  type: IndicatorType;
  /** The normalised indicator. */
  value: string;
  /** 0 to 100: the confidence of the latest assessment. */
  confidence: number;
  /** The sources that flagged it, across its alerts, sorted. */
  sources: string[];
  /** The verdict of the latest assessment when its alert says (a threat alert's `metadata.verdict`). */
  verdict?: 'malicious' | 'suspicious';
  /** ISO 8601: when it was first and last reported. */
  firstSeen: string;
  lastSeen: string;
}

/** What a {@link ThreatIndicatorSource} is asked for. */
export interface ThreatIndicatorQuery {
  /** Only indicators whose confidence is at least this (0 to 100). */
  minConfidence: number;
  /** Only what was reported at or after this time. */
  since?: Date;
}

/**
 * Where the current threat indicators come from when a threat list is published. The client's alert store is one
 * ({@link alertStoreIndicators}); a storage back end's indicator history can be another, handed to `CloudIntegration`
 * as `indicators`.
 */
export interface ThreatIndicatorSource {
  /** Each indicator once, with its latest confidence at or above `query.minConfidence`. */
  threatIndicators(query: ThreatIndicatorQuery): AsyncIterable<ThreatIndicator>;
}

/** Alerts read per `list` call. */
const PAGE_SIZE = 500;

/**
 * The threat indicators of an alert store: every alert is read (`list`, page by page), each indicator is taken once
 * with the confidence of its latest alert that gave one (the current assessment, not the highest ever), the union
 * of the sources that flagged it and when it was first and last reported; those at or above `minConfidence` are the
 * threats. An indicator never given a confidence is not a concluded threat and is left out.
 *
 * @param store The store, or a function giving it (the client's `alerts` is replaced when a storage integration
 *   starts: read it when publishing).
 */
export function alertStoreIndicators(store: AlertStore | (() => AlertStore)): ThreatIndicatorSource {
  return {
    async *threatIndicators(query) {
      const alerts = typeof store === 'function' ? store() : store;
      const seen = new Map<string, Folded>();
      let cursor: string | undefined;
      do {
        const page = await alerts.list({
          limit: PAGE_SIZE,
          ...(cursor === undefined ? {} : { cursor }),
          ...(query.since === undefined ? {} : { since: query.since }),
        });
        for (const alert of page.items) fold(seen, alert);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      for (const { assessedAt: _assessedAt, firstMs: _firstMs, lastMs: _lastMs, ...indicator } of seen.values()) {
        if (indicator.confidence >= query.minConfidence) yield { ...indicator, sources: indicator.sources.sort() };
      }
    },
  };
}

/** An indicator being folded, with its times as epoch ms (alert timestamps may carry different offsets). */
type Folded = ThreatIndicator & { assessedAt: number; firstMs: number; lastMs: number };

function fold(seen: Map<string, Folded>, alert: Alert): void {
  const at = Date.parse(alert.timestamp);
  const iso = Number.isNaN(at) ? alert.timestamp : new Date(at).toISOString();
  const said = alert.metadata?.verdict;
  const verdict = said === 'malicious' || said === 'suspicious' ? said : undefined;
  for (const record of alert.indicators) {
    if (record.confidence === undefined) continue;
    const key = `${record.type}\u0000${record.value}`;
    const sources = [...(record.sources ?? []), ...(record.source === undefined ? [] : [record.source])];
    const known = seen.get(key);
    if (known === undefined) {
      seen.set(key, {
        type: record.type,
        value: record.value,
        confidence: record.confidence,
        ...(verdict === undefined ? {} : { verdict }),
        sources: [...new Set(sources)],
        firstSeen: iso,
        lastSeen: iso,
        assessedAt: at,
        firstMs: at,
        lastMs: at,
      });
      continue;
    }
    known.sources = [...new Set([...known.sources, ...sources])];
    if (at < known.firstMs) {
      known.firstMs = at;
      known.firstSeen = iso;
    }
    if (at > known.lastMs) {
      known.lastMs = at;
      known.lastSeen = iso;
    }
    // The latest assessment wins; two at the same time keep the higher confidence.
    if (at > known.assessedAt || (at === known.assessedAt && record.confidence > known.confidence)) {
      known.confidence = record.confidence;
      known.assessedAt = at;
      if (verdict === undefined) delete known.verdict;
      else known.verdict = verdict;
    }
  }
}
