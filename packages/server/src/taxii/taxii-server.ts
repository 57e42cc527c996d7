import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuthenticationGuard, authenticateRoutes } from '../auth/authentication-hook.js';
import { jsonBodyParser } from '../http/json-body-parser.js';
import { collectionRoutes } from './collection-routes.js';
import { ConcludedThreats } from './concluded-threats.js';
import { acceptsTaxii, contentTypeProblem, TAXII_MEDIA_TYPE } from './media-types.js';
import { objectRoutes } from './object-routes.js';
import { TaxiiObjectStore } from './object-store.js';
import { PageCursors } from './page-cursor.js';
import { serverRoutes } from './server-routes.js';
import { StatusStore } from './status-store.js';
import { INBOX_COLLECTION_ID, INDICATORS_COLLECTION_ID, type TaxiiCollection } from './taxii-collection.js';
import type { TaxiiContext } from './taxii-context.js';
import { sendTaxiiError, TaxiiError } from './taxii-error.js';
import { TaxiiInbox } from './taxii-inbox.js';
import { type ResolvedTaxiiOptions, resolveTaxiiOptions, type TaxiiOptions } from './taxii-options.js';

/** What the REST server hands the TAXII routes: its authentication, and how it reports its own failures. */
export interface TaxiiRouteGuard {
  authenticator: AuthenticationGuard['authenticator'];
  failures: AuthenticationGuard['failures'];
  /** Logs a failure of the server itself (a 500) for the operator. */
  report: (error: unknown, request: FastifyRequest) => void;
  /** Deepest nesting of a request body. */
  jsonDepthLimit: number;
}

/**
 * A TAXII 2.1 server for one client (TAXII 2.1, OASIS Standard): discovery at the prefix, one API root, and two
 * collections, the indicators of the threats the client concludes (read-only) and an inbox whose indicators the
 * client lists (writable). `APIServer.mountTaxii` builds one and serves its routes with the REST API's hardening
 * and authentication.
 */
export class TaxiiServer {
  readonly client: ThreatClient;
  readonly prefix: string;
  readonly options: ResolvedTaxiiOptions;
  readonly indicators: TaxiiCollection;
  readonly inbox: TaxiiCollection | undefined;
  readonly #threats: ConcludedThreats;
  readonly #context: TaxiiContext;
  #started = false;

  /** @throws {RangeError} naming an option that is not valid. */
  constructor(client: ThreatClient, prefix: string, options: TaxiiOptions = {}) {
    this.client = client;
    this.prefix = prefix;
    this.options = resolveTaxiiOptions(options);
    const { now, maxObjects, inbox } = this.options;
    this.indicators = {
      id: INDICATORS_COLLECTION_ID,
      alias: 'indicators',
      title: 'Threats threatlib concluded',
      description:
        'A STIX 2.1 indicator for each indicator threatlib concluded is a threat, with the sources that flagged it; a newer version when the verdict, confidence or evidence changed.',
      canRead: true,
      canWrite: false,
      store: new TaxiiObjectStore({ maxObjects, now }),
    };
    if (inbox !== false) {
      const store = new TaxiiObjectStore({ maxObjects, now });
      this.inbox = {
        id: INBOX_COLLECTION_ID,
        alias: 'inbox',
        title: 'Indicators threatlib lists',
        description: `STIX 2.1 indicators posted here are listed: scans find their values (as list:${inbox.listName}). Revoked ones and older versions are taken off.`,
        canRead: true,
        canWrite: true,
        store,
        inbox: new TaxiiInbox({ store, ...inbox, collection: INBOX_COLLECTION_ID, now }),
      };
    }
    this.#threats = new ConcludedThreats({
      store: this.indicators.store,
      client,
      logger: client.logger,
      now,
      backfill: maxObjects,
    });
    this.#context = {
      options: this.options,
      prefix,
      collections: this.inbox ? [this.indicators, this.inbox] : [this.indicators],
      statuses: new StatusStore({ max: this.options.maxStatuses, retentionMs: this.options.statusRetentionMs, now }),
      cursors: new PageCursors({
        ...(this.options.cursorKey === undefined ? {} : { key: this.options.cursorKey }),
        ttlMs: this.options.cursorTtlMs,
        now,
      }),
    };
  }

  /** Registers the routes on `scope` (a fastify context under the prefix). */
  async routes(scope: FastifyInstance, guard: TaxiiRouteGuard): Promise<void> {
    const refuse = (error: unknown, request: FastifyRequest, reply: Parameters<typeof sendTaxiiError>[2]) =>
      sendTaxiiError(error, request, reply, guard.report);
    scope.setErrorHandler(refuse);
    // After the per-address rate limit, like every API route; a refusal is a TAXII error message.
    authenticateRoutes(scope, { authenticator: guard.authenticator, failures: guard.failures, refuse });
    // After authentication (the route-level onRequest hooks), before the body is read: 406, then 415.
    scope.addHook('preParsing', (request, _reply, payload, done) => {
      if (!acceptsTaxii(request.headers.accept)) {
        done(
          new TaxiiError(
            406,
            'Not acceptable',
            `this server answers ${TAXII_MEDIA_TYPE} only, which the Accept header of this request does not allow`,
          ),
        );
        return;
      }
      if (request.method === 'POST') {
        const problem = contentTypeProblem(request.headers['content-type']);
        if (problem !== undefined) {
          done(new TaxiiError(415, 'Unsupported media type', problem));
          return;
        }
      }
      done(null, payload);
    });
    scope.addContentTypeParser(
      'application/taxii+json',
      { parseAs: 'string' },
      jsonBodyParser({ maxDepth: guard.jsonDepthLimit }),
    );
    serverRoutes(scope, this.#context);
    collectionRoutes(scope, this.#context);
    objectRoutes(scope, this.#context);
  }

  /**
   * Starts the client (when it is not running), fills the indicators collection with the threats it concluded and
   * will conclude, and adds the inbox's list to the client.
   *
   * @throws {ValidationError} when the client already asks a list of the inbox's name.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    await this.client.start();
    if (this.inbox?.inbox) this.client.addList(this.inbox.inbox.list, { weight: this.inbox.inbox.weight });
    await this.#threats.start();
    this.#started = true;
  }

  /** Stops following the client's conclusions and takes the inbox's list off it (the client is not stopped). */
  stop(): void {
    if (!this.#started) return;
    this.#started = false;
    this.#threats.stop();
    if (this.inbox?.inbox) this.client.removeList(this.inbox.inbox.list.name);
  }
}
