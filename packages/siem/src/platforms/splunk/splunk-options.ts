// Splunk's own options of a SIEMConnector (platform siem_a). Sources:
// - HTTP Event Collector, formats and tokens:
//   https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/format-events-for-http-event-collector
// - Indexer acknowledgement (channels, /services/collector/ack):
//   https://help.splunk.com/splunk-enterprise/get-data-in/collect-http-event-data/about-http-event-collector-indexer-acknowledgment
// - Search REST API on the management port (8089):
//   https://help.splunk.com/splunk-enterprise/search/search-manual/9.3/export-search-results/export-data-using-the-splunk-rest-api
import { z } from 'zod';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';

const name = z.string().trim().min(1).max(256);

/** Splunk's management (REST) port, where `port` points by default. */
export const SPLUNK_MANAGEMENT_PORT = 8089;
/** The HTTP Event Collector's default port. */
const SPLUNK_HEC_PORT = 8088;

/** The options `siem_a` adds to the common ones. */
export const SPLUNK_OPTIONS = {
  /** The HTTP Event Collector, where alerts and cases go. */
  hec: z
    .strictObject({
      /**
       * The HEC token (a GUID). Default: `credentials.token` when the credentials are a token; with
       * `{username, password}`, the token of the HEC input named `tokenName`, read from the management port.
       */
      token: z.string().min(1).optional(),
      /** The HEC input whose token is used when none is given (`data/inputs/http/<name>`). */
      tokenName: z.string().trim().min(1).max(256).default('threatlib'),
      /** Default: `host`. */
      host: z.string().trim().min(1).max(253).optional(),
      port: z.int().min(1).max(65_535).default(SPLUNK_HEC_PORT),
      /**
       * Wait for indexer acknowledgement of every request (the token's "Enable indexer acknowledgement"). Default:
       * used when HEC asks for a channel (`Data channel is missing`), so a token with it turned on works as it is.
       */
      ack: z.boolean().optional(),
      /** The channel (a GUID) sent in `X-Splunk-Request-Channel`; default: a new one per connector. */
      channel: z.uuid({ error: 'expected a GUID' }).optional(),
      /** Ms between two polls of `/services/collector/ack` (the wait counts within the attempt's `timeout`). */
      ackInterval: z.int().min(1).max(60_000).default(1_000),
    })
    .default({ port: SPLUNK_HEC_PORT, ackInterval: 1_000, tokenName: 'threatlib' }),
  /** Index of the alert events (default: the HEC token's default index). */
  index: name.optional(),
  source: name.default('threatlib'),
  sourcetype: name.default('threatlib:alert'),
  /** Index cases are written to as notable events (Enterprise Security reads `notable`). */
  caseIndex: name.default('notable'),
  /** Source type of the notable events (`stash`, as Enterprise Security writes them). */
  caseSourcetype: name.default('stash'),
  /** Indexes `enrichIndicator` searches (default: `index`, else `main`). */
  searchIndexes: z.array(name).min(1).max(50).optional(),
  /** How far back `enrichIndicator` searches, as a Splunk time modifier (default `-90d`; `0` for all time). */
  earliest: z
    .string()
    .regex(/^(0|-\d+(s|m|h|d|w|mon|y)(@\w+)?)$/, { error: 'expected a Splunk relative time such as -90d, or 0' })
    .default('-90d'),
  /** The search endpoint: `export` (`/services/search/v2/jobs/export`, Splunk 9) or `oneshot` (`search/jobs`). */
  searchMode: z.enum(['export', 'oneshot']).default('export'),
} as const;

/** Splunk's options once parsed. */
export type SplunkOptions = z.output<z.ZodObject<typeof SPLUNK_OPTIONS>>;

/** The HEC token given in the options: `hec.token`, else the credentials' token; undefined when it is to be looked up. */
export function hecToken(options: ResolvedCommonOptions & SplunkOptions): string | undefined {
  return options.hec.token ?? ('token' in options.credentials ? options.credentials.token : undefined);
}
