import { ConfigurationError, InsecureEndpointError } from '@threatlib/core';
import { headersSchema, recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';
import { EVENT_FORMATS, type EventFormat } from '../formats/event-formats.js';
import { DEFAULT_LEEF_DELIMITER, LEEF_VERSIONS, type LeefVersion, leefDelimiterProblem } from '../formats/leef.js';
import type { ForwarderTransport } from './siem-forwarder-error.js';

/** The port of syslog over TLS (RFC 5425 §4.1), used when a `syslog+tls://` endpoint names none. */
const SYSLOG_TLS_PORT = 6514;

const SCHEMES: Readonly<Record<string, ForwarderTransport>> = {
  'https:': 'https',
  'http:': 'http',
  'syslog+tls:': 'syslog+tls',
  'syslog+tcp:': 'syslog+tcp',
};

const pem = z.string().min(1, { error: 'expected a PEM certificate' });

/** `enterprise.siemIntegration` as the forwarder takes it. */
const ForwarderOptionsSchema = z.strictObject({
  /** The client builds the forwarder only when true. */
  enabled: z.boolean().default(false),
  /** `https://…` (POST), `syslog+tls://host[:6514]` (RFC 5425) or `syslog+tcp://host:port` (RFC 6587). */
  endpoint: z.string({
    error: 'required: where to send alerts (https://host/path, syslog+tls://host:port or syslog+tcp://host:port)',
  }),
  format: z.enum(EVENT_FORMATS, { error: `expected one of ${EVENT_FORMATS.join(', ')}` }).default('json'),
  /** How `format: 'leef'` writes events. */
  leef: z
    .strictObject({
      version: z.enum(LEEF_VERSIONS, { error: 'expected "1.0" or "2.0"' }).default('2.0'),
      /** LEEF 2.0's attribute delimiter (default `^`); an event whose values hold it is written with a tab. */
      delimiter: z
        .string()
        .superRefine((delimiter, ctx) => {
          const problem = leefDelimiterProblem(delimiter);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .default(DEFAULT_LEEF_DELIMITER),
    })
    .prefault({}),
  /**
   * HTTPS only: headers sent with every POST (an `Authorization`); never logged nor put in an error. Checked as undici
   * checks them before sending: names are tokens, values hold no line break nor other control character but tab.
   */
  headers: headersSchema.optional(),
  tls: z
    .strictObject({
      /** PEM certificate(s) of the authority that signed the endpoint's certificate, trusted besides Node's own. */
      ca: z.union([pem, z.array(pem).min(1)]).optional(),
      /** Refuse a certificate no trusted authority signed (default: `security.validateCertificates`). */
      rejectUnauthorized: z.boolean().optional(),
      /** The name to check the certificate against, when it is not the endpoint's host. */
      servername: z.string().min(1).optional(),
    })
    .optional(),
});

/** `enterprise.siemIntegration`, as given. */
export type SiemForwarderOptions = z.input<typeof ForwarderOptionsSchema>;

/** The forwarder's options once checked: where and how to send, in what format. */
export interface ResolvedForwarderOptions {
  transport: ForwarderTransport;
  /** The endpoint as given, for HTTP requests. */
  url: URL;
  /** Host name or address (an IPv6 address without brackets). */
  host: string;
  port: number;
  /** The endpoint as messages show it: scheme, host, port and path, never credentials or a query string. */
  display: string;
  format: EventFormat;
  leef: { version: LeefVersion; delimiter: string };
  headers: Readonly<Record<string, string>>;
  tls: { ca?: string | string[]; rejectUnauthorized: boolean; servername?: string };
}

/** What the client's configuration decides about the forwarder. */
export interface ForwarderPolicy {
  /** Where the options sit in the configuration, for error paths (`enterprise.siemIntegration`). */
  optionsPath: string;
  /** `security.enforceHttps`: refuse `http://` and `syslog+tcp://`. */
  enforceHttps: boolean;
  /** `security.validateCertificates`: the default of `tls.rejectUnauthorized`. */
  validateCertificates: boolean;
}

/**
 * Checks `enterprise.siemIntegration` and resolves what the forwarder needs.
 *
 * @throws {ConfigurationError} `Configuration invalid: enterprise.siemIntegration.<option>: ...` naming each problem.
 * @throws {InsecureEndpointError} for an `http://` or `syslog+tcp://` endpoint while `security.enforceHttps` is on.
 */
export function parseForwarderOptions(options: unknown, policy: ForwarderPolicy): ResolvedForwarderOptions {
  const where = policy.optionsPath;
  const at = (path: string) => (path === '(root)' ? where : `${where}.${path}`);
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError([{ path: where, message: 'expected {enabled, endpoint, format}' }]);
  }
  const result = ForwarderOptionsSchema.safeParse(options);
  if (!result.success) {
    throw new ConfigurationError(
      recordIssues(result.error.issues).map((issue) => ({ ...issue, path: at(issue.path) })),
    );
  }
  const parsed = result.data;
  const endpoint = resolveEndpoint(parsed.endpoint, `${where}.endpoint`);
  const secure = endpoint.transport === 'https' || endpoint.transport === 'syslog+tls';
  if (!secure && policy.enforceHttps) {
    throw new InsecureEndpointError(
      endpoint.display,
      `${where}.endpoint ${endpoint.display} is not encrypted; security.enforceHttps refuses it (use https:// or syslog+tls://, or set security.enforceHttps: false)`,
    );
  }
  const isHttp = endpoint.transport === 'https' || endpoint.transport === 'http';
  if (!isHttp && parsed.headers !== undefined && Object.keys(parsed.headers).length > 0) {
    throw new ConfigurationError([
      { path: `${where}.headers`, message: `headers are sent with HTTP(S) POSTs only, not over ${endpoint.transport}` },
    ]);
  }
  if (parsed.tls !== undefined && !secure) {
    throw new ConfigurationError([
      {
        path: `${where}.tls`,
        message: `TLS options apply to https:// and syslog+tls:// only, not ${endpoint.transport}`,
      },
    ]);
  }
  const tls = parsed.tls ?? {};
  return {
    ...endpoint,
    format: parsed.format,
    leef: parsed.leef,
    headers: parsed.headers ?? {},
    tls: {
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      rejectUnauthorized: tls.rejectUnauthorized ?? policy.validateCertificates,
      ...(tls.servername === undefined ? {} : { servername: tls.servername }),
    },
  };
}

function resolveEndpoint(
  text: string,
  path: string,
): Pick<ResolvedForwarderOptions, 'transport' | 'url' | 'host' | 'port' | 'display'> {
  const refuse = (message: string): never => {
    throw new ConfigurationError([{ path, message }]);
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('expected an absolute URL: https://host/path, syslog+tls://host:port or syslog+tcp://host:port');
  }
  const transport = SCHEMES[url.protocol];
  if (transport === undefined) {
    return refuse(
      `unsupported scheme ${JSON.stringify(url.protocol.slice(0, -1))}: use https, http, syslog+tls or syslog+tcp`,
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return refuse('expected a host');
  if (url.username !== '' || url.password !== '') {
    return refuse(
      transport === 'https' || transport === 'http'
        ? 'credentials do not go in the URL: send them in headers (an Authorization header)'
        : 'syslog has no credentials: remove the user from the URL',
    );
  }
  const syslog = transport === 'syslog+tls' || transport === 'syslog+tcp';
  if (syslog && ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')) {
    return refuse('a syslog endpoint is host and port only, without path or query');
  }
  let port = url.port === '' ? undefined : Number(url.port);
  if (port === undefined) {
    if (transport === 'syslog+tcp') {
      return refuse('syslog+tcp needs a port (there is no standard one; rsyslog and syslog-ng often listen on 514)');
    }
    port = transport === 'syslog+tls' ? SYSLOG_TLS_PORT : transport === 'https' ? 443 : 80;
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const display = `${transport}://${shownHost}:${port}${syslog ? '' : url.pathname}`;
  return { transport, url, host, port, display };
}
