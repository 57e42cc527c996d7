// Elastic's own options of a SIEMConnector (platform siem_c). Sources:
// - Elasticsearch authentication (basic, API key `Authorization: ApiKey <encoded>`, bearer tokens):
//   https://www.elastic.co/docs/api/doc/elasticsearch/authentication
// - The JavaScript client (8.x for an 8.x server: "the client is forward compatible within a major"):
//   https://www.elastic.co/docs/reference/elasticsearch/clients/javascript/installation#js-compatibility-matrix
// - Kibana Cases API and its spaces (`/s/<space_id>/api/cases`):
//   https://www.elastic.co/docs/api/doc/kibana/operation/operation-createcasedefaultspace
//   https://www.elastic.co/docs/api/doc/kibana/group/endpoint-cases
import { z } from 'zod';
import type { ResolvedCommonOptions } from '../../connector/connector-options.js';

/** Elasticsearch's HTTP port, where `port` points by default. */
export const ELASTICSEARCH_PORT = 9200;
/** Kibana's default port. */
const KIBANA_PORT = 5601;

/**
 * An index or index pattern name as Elasticsearch takes it: lower case, no `\ / * ? " < > | , #` or spaces, not
 * starting with `-`, `_` or `+`, not `.` or `..`, at most 255 bytes.
 * https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-indices-create#operation-indices-create-path
 */
const indexName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => name === name.toLowerCase(), { error: 'must be lower case (Elasticsearch refuses upper case)' })
  .refine((name) => !/[\\/*?"<>|,# :]/.test(name), {
    error: 'must not contain \\ / * ? " < > | , # : or spaces',
  })
  .refine((name) => !/^[-_+]/.test(name) && name !== '.' && name !== '..', {
    error: 'must not start with -, _ or + (nor be . or ..)',
  });

/** An index or pattern to search (`logs-*`): like an index name, `*` allowed. */
const searchPattern = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[\\/?"<>|,# ]/.test(name), { error: 'must not contain \\ / ? " < > | , # or spaces' });

/** A Kibana user profile uid (`u_...`), as `GET /_security/profile/_suggest` or Kibana's user menu shows it. */
const profileUid = z.string().min(1).max(256);

/** The options `siem_c` adds to the common ones. */
export const ELASTIC_OPTIONS = {
  /**
   * Where alerts are written (a plain index, or a data stream you created: every alert is a `create` with an
   * `@timestamp`, which both take).
   */
  index: indexName.default('threatlib-alerts'),
  /**
   * Install, at first use, an index template named after `index` with the alert mappings, and create the index if
   * it is missing. `false` when you manage the index (or data stream) and its mappings yourself.
   */
  manageIndex: z.boolean().default(true),
  /** `refresh` of every bulk request: `false` (default, fastest), `true`, or `wait_for` (visible to search on return). */
  refresh: z.union([z.boolean(), z.literal('wait_for')]).default(false),
  /** Indices and patterns `enrichIndicator` searches (default: `index`); add `logs-*` to count raw events too. */
  searchIndexes: z.array(searchPattern).min(1).max(50).optional(),
  /** How far back `enrichIndicator` looks, as Elasticsearch time units (`90d`, `12h`), or `all`. */
  lookback: z
    .string()
    .regex(/^(all|[1-9]\d{0,5}[yMwdhHms])$/, {
      error: 'expected a number and a unit (y M w d h H m s), such as 90d, or all',
    })
    .default('90d'),
  /** How `credentials.token` is sent: an API key's `encoded` value (`ApiKey`, default) or a bearer token. */
  tokenScheme: z.enum(['ApiKey', 'Bearer']).default('ApiKey'),
  /**
   * Kibana, where `createCase` opens cases (Cases API) and `testConnection` reads `/api/status`. Same credentials,
   * protocol and TLS options as Elasticsearch.
   */
  kibana: z
    .strictObject({
      /** `false`: no Kibana (createCase rejects as unsupported, testConnection leaves it out). */
      enabled: z.boolean().default(true),
      /** Default: `host`. */
      host: z
        .string()
        .trim()
        .min(1)
        .max(253)
        .refine((host) => !host.includes('://') && !/[/?#@\s]/.test(host), {
          error: 'expected a host name or address only (no scheme, path or user)',
        })
        .optional(),
      port: z.int().min(1).max(65_535).default(KIBANA_PORT),
      /** The Kibana space of the cases (default: the default space). */
      space: z
        .string()
        .regex(/^[a-z0-9_-]{1,100}$/, { error: 'expected a space id: lower-case letters, digits, _ and -' })
        .optional(),
      /** The application that owns the cases (`securitySolution`, `observability`, `cases` for Stack Management). */
      owner: z.enum(['securitySolution', 'observability', 'cases']).default('securitySolution'),
      /** Tags every case gets, besides `threatlib`. */
      tags: z.array(z.string().trim().min(1).max(256)).max(50).default([]),
      /**
       * Kibana user profile uids by e-mail: a case whose `assignee` is listed here is assigned to that profile
       * (assigning needs a Platinum license). An e-mail not listed goes into the tags (`assignee:<e-mail>`) and
       * the description instead.
       */
      assignees: z
        .record(z.string(), profileUid)
        .superRefine((map, ctx) => {
          for (const key of Object.keys(map)) {
            if (!z.email().safeParse(key).success) {
              ctx.addIssue({ code: 'custom', path: [key], message: 'expected an e-mail address as the key' });
            }
          }
        })
        .default({}),
    })
    .default({ enabled: true, port: KIBANA_PORT, owner: 'securitySolution', tags: [], assignees: {} }),
} as const;

/** Elastic's options once parsed. */
export type ElasticOptions = z.output<z.ZodObject<typeof ELASTIC_OPTIONS>>;

/** The Kibana options once parsed. */
export type KibanaOptions = ElasticOptions['kibana'];

/** Every option of a `siem_c` connector: the common ones resolved and Elastic's. */
export type ResolvedElasticOptions = ResolvedCommonOptions & ElasticOptions;
