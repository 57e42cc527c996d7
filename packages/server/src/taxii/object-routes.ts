import type { FastifyInstance } from 'fastify';
import type { StoredObject } from './object-store.js';
import type { StatusDetails } from './status-store.js';
import type { TaxiiCollection } from './taxii-collection.js';
import { collectionFor, dateAddedHeaders, readPage, type TaxiiContext } from './taxii-context.js';
import { sendTaxii, TaxiiError } from './taxii-error.js';
import { isStixId, parseTaxiiQuery } from './taxii-query.js';

/**
 * TAXII 2.1 sections 5.4 to 5.8, a collection's objects: `GET .../objects/` (paged, filtered), `POST .../objects/`
 * (an envelope; answered 202 with a status resource), `GET` and `DELETE .../objects/<id>/`, and
 * `GET .../objects/<id>/versions/`.
 */
export function objectRoutes(scope: FastifyInstance, context: TaxiiContext): void {
  const { options } = context;
  const objects = `/${options.apiRoot}/collections/:collection/objects/`;
  const limits = { defaultLimit: options.defaultPageSize, maxLimit: options.maxPageSize };
  const named = (params: unknown) => (params as { collection: string }).collection;

  scope.get(objects, async (request, reply) => {
    const collection = collectionFor(context, named(request.params), 'read');
    const query = parseTaxiiQuery(request.query, ['id', 'type', 'version', 'spec_version'], {
      ...limits,
      defaultVersion: 'last',
    });
    const page = readPage(context, collection, query, 'objects');
    dateAddedHeaders(reply, page.records);
    return sendTaxii(reply, envelope(page.records, page.more, page.next));
  });

  scope.post(objects, { bodyLimit: options.maxContentLength }, async (request, reply) => {
    const requestedAt = options.now();
    const collection = collectionFor(context, named(request.params), 'write');
    const body = request.body as { objects?: unknown } | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray(body.objects)) {
      throw new TaxiiError(422, 'Not an envelope', 'the body must be a TAXII envelope: {"objects": [STIX objects]}');
    }
    if (body.objects.length > options.maxObjectsPerRequest) {
      throw new TaxiiError(
        413,
        'Too many objects',
        `an envelope posted here holds at most ${options.maxObjectsPerRequest} objects; this one has ${body.objects.length}`,
      );
    }
    const status = take(context, collection, body.objects, requestedAt);
    return sendTaxii(reply.code(202), status);
  });

  scope.get(`${objects}:objectId/`, async (request, reply) => {
    const collection = collectionFor(context, named(request.params), 'read');
    const id = heldId(collection, request.params);
    const query = parseTaxiiQuery(request.query, ['version', 'spec_version'], { ...limits, defaultVersion: 'last' });
    const page = readPage(context, collection, query, `object:${id}`, id);
    dateAddedHeaders(reply, page.records);
    return sendTaxii(reply, envelope(page.records, page.more, page.next));
  });

  scope.delete(`${objects}:objectId/`, async (request, reply) => {
    const collection = collectionFor(context, named(request.params), 'write');
    const id = heldId(collection, request.params);
    // Without match[version], every version goes: deleting the newest alone would bring an older one back.
    const query = parseTaxiiQuery(request.query, ['version', 'spec_version'], { ...limits, defaultVersion: 'all' });
    const removed = collection.store.delete(id, query);
    if (removed.length === 0) {
      throw new TaxiiError(
        404,
        'Object not found',
        `no version of ${id} matches match[version] and match[spec_version]`,
      );
    }
    collection.inbox?.deleted(id);
    return reply.code(200).send();
  });

  scope.get(`${objects}:objectId/versions/`, async (request, reply) => {
    const collection = collectionFor(context, named(request.params), 'read');
    const id = heldId(collection, request.params);
    const query = parseTaxiiQuery(request.query, ['spec_version'], { ...limits, defaultVersion: 'all' });
    const page = readPage(context, collection, query, `versions:${id}`, id);
    dateAddedHeaders(reply, page.records);
    return sendTaxii(reply, {
      more: page.more,
      ...(page.next === undefined ? {} : { next: page.next }),
      ...(page.records.length > 0 ? { versions: page.records.map((record) => record.version) } : {}),
    });
  });
}

/** The object id of the path, when the collection holds it. @throws {TaxiiError} 404 saying why not. */
function heldId(collection: TaxiiCollection, params: unknown): string {
  const { objectId } = params as { objectId: string };
  if (!isStixId(objectId as unknown)) {
    throw new TaxiiError(
      404,
      'Object not found',
      `${JSON.stringify(String(objectId).slice(0, 80))} is not a STIX id (<type>--<UUID>)`,
    );
  }
  if (!collection.store.has(objectId)) {
    throw new TaxiiError(404, 'Object not found', `the collection ${collection.id} holds no object ${objectId}`);
  }
  return objectId;
}

/** A TAXII envelope, written from each record's JSON as stored. */
function envelope(records: readonly StoredObject[], more: boolean, next: string | undefined): string {
  const parts = [`"more":${more}`];
  if (next !== undefined) parts.push(`"next":${JSON.stringify(next)}`);
  if (records.length > 0) parts.push(`"objects":[${records.map((record) => record.json).join(',')}]`);
  return `{${parts.join(',')}}`;
}

/** Stores the objects of a POST, hands the new ones to the collection's list, and records the status. */
function take(context: TaxiiContext, collection: TaxiiCollection, objects: readonly unknown[], requestedAt: number) {
  const successes: StatusDetails[] = [];
  const failures: StatusDetails[] = [];
  const added: StoredObject[] = [];
  const details = new Map<StoredObject, StatusDetails>();
  objects.forEach((object, index) => {
    const outcome = collection.store.add(object);
    if (!outcome.ok) {
      failures.push({ id: outcome.id ?? `objects[${index}]`, version: outcome.version ?? '', message: outcome.reason });
      return;
    }
    const line: StatusDetails = {
      id: outcome.stored.id,
      version: outcome.stored.version,
      ...(outcome.added ? {} : { message: 'the collection holds this version already' }),
    };
    successes.push(line);
    if (outcome.added) {
      added.push(outcome.stored);
      details.set(outcome.stored, line);
    }
  });
  for (const [record, message] of collection.inbox?.took(added) ?? []) {
    const line = details.get(record);
    if (line) line.message = message;
  }
  return context.statuses.record(requestedAt, successes, failures);
}
