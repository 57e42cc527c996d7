import type { Correlation } from '../correlation/correlate.js';
import type { ScoutResult } from '../scout/scout-engine.js';

/** A correlation together with the feed results it was computed from (what `client.correlate` resolves to). */
export interface CorrelationResult extends Correlation {
  results: ScoutResult['results'];
  /** ISO 8601. */
  startedAt: string;
  durationMs: number;
  /** Set when some results are stored verdicts or demo data, not live answers (see `ScoutResult.fallback`). */
  fallback?: ScoutResult['fallback'];
}
