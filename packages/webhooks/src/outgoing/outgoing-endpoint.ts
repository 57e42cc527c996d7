import { createSecretKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigurationError } from '@threatlib/core';
import { checkEndpoint, headerNameProblem, headerValueProblem, recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';
import { MIN_SECRET_BYTES, secretBytes } from '../incoming/incoming-options.js';
import type { AddressPolicy } from '../network/address-policy.js';
import { BlockedAddressError } from '../network/blocked-address-error.js';

/** Headers the sender sets itself: a definition's `headers` may not name them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

const secretSchema = z.string({ error: 'expected the signing secret as a string' }).superRefine((secret, context) => {
  if (secret.startsWith('whsec_') && !/^[A-Za-z0-9+/]+={0,2}$/.test(secret.slice(6))) {
    context.addIssue({ code: 'custom', message: 'a "whsec_" secret must be base64 after the prefix' });
    return;
  }
  const bytes = secretBytes(secret).byteLength;
  if (bytes < MIN_SECRET_BYTES) {
    context.addIssue({
      code: 'custom',
      message: `the secret has ${bytes} bytes; use at least ${MIN_SECRET_BYTES} (a "whsec_" secret counts its decoded bytes)`,
    });
  }
});

const headerMap = z
  .record(z.string(), z.string({ error: 'expected a header value string' }))
  .superRefine((headers, context) => {
    const seen = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      const nameProblem = headerNameProblem(name);
      // A bad name is reported at the map, quoted escaped: as a path it would carry its line break into the message.
      if (nameProblem !== undefined) context.addIssue({ code: 'custom', path: [], message: nameProblem });
      else if (seen.has(name.toLowerCase())) {
        // Both would be sent, and receivers disagree on which one counts.
        context.addIssue({ code: 'custom', path: [name], message: 'given twice (header names ignore case)' });
      } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
        context.addIssue({ code: 'custom', path: [name], message: 'set by the sender; it cannot be given' });
      } else {
        const valueProblem = headerValueProblem(value);
        if (valueProblem !== undefined) context.addIssue({ code: 'custom', path: [name], message: valueProblem });
      }
      seen.add(name.toLowerCase());
    }
  });

/**
 * A definition's headers: names and values HTTP allows, none the sender sets. A header named `__proto__` (an
 * ordinary key in parsed JSON) is refused before the record schema copies the map, which would drop it without a
 * word; typed as the record it is.
 */
const headersSchema = z.preprocess((headers, context) => {
  if (typeof headers === 'object' && headers !== null && Object.hasOwn(headers, '__proto__')) {
    context.addIssue({ code: 'custom', path: ['__proto__'], message: 'not a header name', input: undefined });
  }
  return headers;
}, headerMap) as unknown as typeof headerMap;

/** An outgoing webhook definition (INTERFACE.md 2.5), with the optional `secret` that makes deliveries signed. */
export const OutgoingWebhookDefinitionSchema = z.strictObject({
  /** Unique name of the endpoint. */
  name: z.string({ error: 'required: a name for the endpoint' }).regex(/^[^\s\p{Cc}][^\p{Cc}]{0,199}$/u, {
    error: 'expected 1 to 200 printable characters, not starting with a space',
  }),
  /** Where deliveries are POSTed (https: unless security.enforceHttps is off). */
  url: z.string({ error: 'required: the URL deliveries are POSTed to' }).min(1).max(8192),
  /** Event names the endpoint receives (`high-confidence-threat`, `campaign-detected`). */
  events: z
    .array(z.string().min(1).max(200), { error: 'required: the event names the endpoint receives' })
    .min(1, { error: 'list at least one event name' })
    .max(100),
  /**
   * Headers sent as given with every delivery (`Authorization: Bearer ...`). A header named `__proto__` is refused
   * (see {@link headersSchema}).
   */
  headers: headersSchema.optional(),
  /** The Standard Webhooks signing secret: `whsec_<base64>`, or any string (its UTF-8 bytes). */
  secret: secretSchema.optional(),
});

/** What users write for an outgoing webhook definition. */
export type OutgoingWebhookDefinition = z.input<typeof OutgoingWebhookDefinitionSchema>;

/** A registered endpoint, checked. */
export interface OutgoingEndpoint {
  readonly name: string;
  readonly url: URL;
  readonly events: ReadonlySet<string>;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The signing key (the secret's bytes, as a `KeyObject`: an HMAC made with one is several times cheaper than with
   * a Buffer, which Node checks anew at every call), or undefined for unsigned deliveries.
   */
  readonly key: KeyObject | undefined;
  /** Set when the receiver answered 410 Gone: nothing more is sent to it. */
  disabled: boolean;
}

/**
 * Checks a definition and makes the endpoint: a URL that is absolute, http or https (https only under
 * `enforceHttps`), carries no credentials, and is not a literal address the network policy refuses (a host name is
 * checked at each connection).
 *
 * @throws {ConfigurationError} naming each problem under `path` (a secret is never quoted).
 * @throws {InsecureEndpointError} when the URL is not https and `enforceHttps` is on.
 */
export function makeEndpoint(
  definition: unknown,
  path: string,
  policy: { enforceHttps: boolean; addresses: AddressPolicy },
): OutgoingEndpoint {
  const parsed = OutgoingWebhookDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    throw new ConfigurationError(
      recordIssues(parsed.error.issues).map((issue) => ({
        path: issue.path === '(root)' ? path : `${path}.${issue.path}`,
        message: issue.message,
      })),
    );
  }
  const { name, url: text, events, headers, secret } = parsed.data;
  const url = checkEndpoint(text, `${path}.url`, { enforceHttps: policy.enforceHttps });
  const problem =
    url.protocol !== 'https:' && url.protocol !== 'http:'
      ? `expected an http or https URL, got ${url.protocol}`
      : url.username !== '' || url.password !== ''
        ? 'credentials in the URL are refused: send them in headers (Authorization)'
        : undefined;
  if (problem) throw new ConfigurationError([{ path: `${path}.url`, message: problem }]);
  // A literal address is refused now rather than at every delivery; a name is resolved and checked per connection.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const verdict = policy.addresses.check(host);
    if (!verdict.allowed) {
      const refused = new BlockedAddressError(host, verdict.class.address, verdict.class.range);
      throw new ConfigurationError([{ path: `${path}.url`, message: refused.message }]);
    }
  }
  return {
    name,
    url,
    events: new Set(events),
    headers: headers ?? {},
    key: secret === undefined ? undefined : createSecretKey(secretBytes(secret)),
    disabled: false,
  };
}
