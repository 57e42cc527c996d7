// IBM QRadar's own options of a SIEMConnector (platform siem_b). Sources:
// - REST API versions and the Version header ("If you request a version greater than the latest version of an
//   endpoint, the latest available version of that endpoint is returned"):
//   https://ibmsecuritydocs.github.io/qradar_api_overview/c_rest_api_getting_started.html
// - TLS Syslog log sources (default TLS listen port 6514): https://www.ibm.com/docs/en/dsm?topic=options-tls-syslog-protocol-configuration
// - Reference sets (element types, namespace, domain_id of bulk_load):
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--reference_data-sets-bulk_load-namespace-name-domain_id-POST.html
// - Custom event properties, with a LEEF expression naming a LEEF key (for `riskScoreProperty`):
//   https://www.ibm.com/docs/en/qsip/7.6.0?topic=editor-creating-custom-property and
//   https://www.ibm.com/docs/en/SSKMKU/com.ibm.qradar.doc/t_LSX_guide_custprop_definition.html
import { z } from 'zod';

const setName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\]/.test(name), { error: 'a reference set name cannot contain "/" or "\\"' });

/** QRadar's console (REST API) port, where `port` points by default. */
export const QRADAR_API_PORT = 443;
/** QRadar's default TLS Syslog listen port. */
export const QRADAR_TLS_SYSLOG_PORT = 6514;
/** QRadar's TCP syslog port. */
export const QRADAR_TCP_SYSLOG_PORT = 514;
/** The REST API version asked for (QRadar 7.5.0 Update Package 8; later releases answer it as it was). */
const QRADAR_API_VERSION = '22.0';

/** The options `siem_b` adds to the common ones. */
export const QRADAR_OPTIONS = {
  /** The `Version` header of every REST call. */
  apiVersion: z
    .string()
    .regex(/^\d+\.\d+$/, { error: 'expected a QRadar API version such as 22.0' })
    .default(QRADAR_API_VERSION),
  /** Where alerts and cases go: a QRadar syslog listener receiving LEEF. */
  syslog: z
    .strictObject({
      /** Default: `host` (the console); usually an Event Collector. */
      host: z.string().trim().min(1).max(253).optional(),
      /** Default 6514 for `tls`, 514 for `tcp`. */
      port: z.int().min(1).max(65_535).optional(),
      /** `tls` (a TLS Syslog log source, verified with the connector's `tls` options) or plain `tcp`. */
      protocol: z.enum(['tls', 'tcp']).default('tls'),
      /** Octet counting (RFC 5425, the default over TLS) or a line feed after each message (the default over TCP). */
      framing: z.enum(['octet-counting', 'lf']).optional(),
      /** QRadar's "Max TCP Syslog Payload Length" (4096 by default): longer events are shortened to fit. */
      maxMessageBytes: z.int().min(1024).max(1_048_576).default(4096),
      /** The syslog HOSTNAME, which QRadar uses as the log source identifier (default: this machine's name). */
      hostname: z.string().trim().min(1).max(255).optional(),
    })
    .default({ protocol: 'tls', maxMessageBytes: 4096 }),
  /** LEEF version of the events (2.0 names its delimiter in the header; 1.0 uses tabs). */
  leefVersion: z.enum(['1.0', '2.0']).default('2.0'),
  /** The reference sets indicators are added to (created as ALNIC sets when missing). */
  referenceSets: z
    .strictObject({
      alerts: setName.default('threatlib alert indicators'),
      cases: setName.default('threatlib case indicators'),
      /** `domain_id` of bulk loads: `SHARED` (an administrator's token) or a numeric domain the token may use. */
      domain: z.union([z.literal('SHARED'), z.int().min(0)]).default('SHARED'),
    })
    .default({ alerts: 'threatlib alert indicators', cases: 'threatlib case indicators', domain: 'SHARED' }),
  /** How `enrichIndicator` searches Ariel. */
  enrichment: z
    .strictObject({
      /** How far back the search goes (`LAST n DAYS`). */
      days: z.int().min(1).max(3650).default(30),
      /**
       * The custom event property (a Number, its LEEF expression the key `riskScore`) holding threatlib's risk
       * score, or `false` to take the events' magnitude (0–10) instead.
       */
      riskScoreProperty: z
        .union([
          z
            .string()
            .min(1)
            .max(255)
            .refine((name) => !name.includes('"'), { error: 'a property name cannot contain a double quote' }),
          z.literal(false),
        ])
        .default('riskScore'),
      /** Ms between two status polls of an Ariel search that ignored `Prefer: wait`. */
      pollInterval: z.int().min(1).max(60_000).default(1000),
    })
    .default({ days: 30, riskScoreProperty: 'riskScore', pollInterval: 1000 }),
} as const;

/** QRadar's options once parsed. */
export type QradarOptions = z.output<z.ZodObject<typeof QRADAR_OPTIONS>>;
