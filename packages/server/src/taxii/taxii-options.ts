import type { LocalListMatchMode, LocalListVerdict } from '@threatlib/core/lists';

/**
 * Options of the TAXII 2.1 server `APIServer.mountTaxii(prefix, client, options)` serves. Every one has a default;
 * see the server README, "TAXII 2.1".
 */
export interface TaxiiOptions {
  /** The discovery's `title` (default `threatlib TAXII 2.1 server`). */
  title?: string;
  /** The discovery's `description`. */
  description?: string;
  /** The discovery's `contact`. */
  contact?: string;
  /** The API root's path segment under the prefix (default `threatlib`: `/taxii2/threatlib/`). */
  apiRoot?: string;
  /**
   * The URL clients reach the prefix at (`https://intel.example/taxii2/`), for the discovery's `api_roots` and
   * `default`. Default: made from each request's Host (behind a proxy that rewrites it, set this).
   */
  publicUrl?: string;
  /** Largest request body, in bytes (the API root's `max_content_length`; default 10 MiB). */
  maxContentLength?: number;
  /** Most objects in one POST (default 10,000); more is a 413. */
  maxObjectsPerRequest?: number;
  /** Objects on a page when the request gives no `limit` (default 100). */
  defaultPageSize?: number;
  /** Most objects on a page (default 1000): a larger `limit` is lowered to it, as TAXII allows. */
  maxPageSize?: number;
  /**
   * The key `next` cursors are signed with (HMAC-SHA256), at least 32 bytes. Default: a random one made when the
   * server is built, so cursors die with the process; instances behind a load balancer must share one (and the
   * objects: see the README).
   */
  cursorKey?: string | Uint8Array;
  /** How long a `next` cursor is accepted, in ms (default 3,600,000: one hour). */
  cursorTtlMs?: number;
  /** Most object versions each collection holds (default 100,000); past it, the oldest added tenth is dropped. */
  maxObjects?: number;
  /** Most status resources kept (default 1000), each for at most `statusRetentionMs` (default 86,400,000: a day). */
  maxStatuses?: number;
  statusRetentionMs?: number;
  /**
   * The writable collection, whose indicators become a list the client asks (default on). `false` serves the
   * indicators collection only.
   */
  inbox?:
    | false
    | {
        /** The list's name (default `taxii-inbox`): scan results carry `list:<name>`. */
        listName?: string;
        /** What being on it means (default `malicious`). */
        verdict?: LocalListVerdict;
        /** How its entries match (default `host`, as a local list's). */
        match?: LocalListMatchMode;
        /** Its weight in correlation, 0..1 (default 0.7, as a local list's). */
        weight?: number;
      };
  /** The current time in epoch ms (tests move it); default `Date.now`. */
  now?: () => number;
}

/** {@link TaxiiOptions} with every default in. */
export interface ResolvedTaxiiOptions {
  title: string;
  description: string | undefined;
  contact: string | undefined;
  apiRoot: string;
  publicUrl: string | undefined;
  maxContentLength: number;
  maxObjectsPerRequest: number;
  defaultPageSize: number;
  maxPageSize: number;
  cursorKey: string | Uint8Array | undefined;
  cursorTtlMs: number;
  maxObjects: number;
  maxStatuses: number;
  statusRetentionMs: number;
  inbox: false | { listName: string; verdict: LocalListVerdict; match: LocalListMatchMode; weight: number };
  now: () => number;
}

const SEGMENT = /^[A-Za-z0-9._~-]{1,64}$/;

/** @throws {RangeError} naming the option that is not valid and what it got. */
export function resolveTaxiiOptions(options: TaxiiOptions = {}): ResolvedTaxiiOptions {
  const whole = (name: keyof TaxiiOptions, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new RangeError(`TAXII ${name} must be a whole number from ${min} to ${max}; got ${String(value)}`);
    }
    return value;
  };
  const apiRoot = options.apiRoot ?? 'threatlib';
  if (!SEGMENT.test(apiRoot) || apiRoot === '.' || apiRoot === '..') {
    throw new RangeError(
      `TAXII apiRoot must be one path segment (letters, digits, ".", "_", "~", "-"); got ${JSON.stringify(apiRoot)}`,
    );
  }
  if (options.publicUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(options.publicUrl)) {
    throw new RangeError(
      `TAXII publicUrl must be an http(s) URL without query or fragment; got ${JSON.stringify(options.publicUrl)}`,
    );
  }
  const maxPageSize = whole('maxPageSize', 1000, 1, 100_000);
  const inbox = options.inbox === false ? false : (options.inbox ?? {});
  const weight = inbox === false ? 0.7 : (inbox.weight ?? 0.7);
  if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) {
    throw new RangeError(`TAXII inbox.weight must be a number from 0 to 1; got ${String(weight)}`);
  }
  return {
    title: options.title ?? 'threatlib TAXII 2.1 server',
    description: options.description,
    contact: options.contact,
    apiRoot,
    publicUrl: options.publicUrl === undefined ? undefined : options.publicUrl.replace(/\/*$/, '/'),
    maxContentLength: whole('maxContentLength', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxObjectsPerRequest: whole('maxObjectsPerRequest', 10_000, 1, 1_000_000),
    defaultPageSize: Math.min(whole('defaultPageSize', 100, 1, 100_000), maxPageSize),
    maxPageSize,
    cursorKey: options.cursorKey,
    cursorTtlMs: whole('cursorTtlMs', 3_600_000, 1),
    maxObjects: whole('maxObjects', 100_000, 10),
    maxStatuses: whole('maxStatuses', 1000, 1),
    statusRetentionMs: whole('statusRetentionMs', 86_400_000, 1),
    inbox:
      inbox === false
        ? false
        : {
            listName: inbox.listName ?? 'taxii-inbox',
            verdict: inbox.verdict ?? 'malicious',
            match: inbox.match ?? 'host',
            weight,
          },
    now: options.now ?? Date.now,
  };
}
