import { stixTimestamp } from '@threatlib/core/integration';
import type { FastifyInstance } from 'fastify';
import { stixMediaType } from './media-types.js';
import { collectionResource } from './taxii-collection.js';
import { collectionFor, dateAddedHeaders, readPage, type TaxiiContext } from './taxii-context.js';
import { sendTaxii } from './taxii-error.js';
import { parseTaxiiQuery } from './taxii-query.js';

/**
 * TAXII 2.1 section 5.1, 5.2 and 5.3: the API root's collections (`GET /<api root>/collections/`), one collection
 * (`.../collections/<id>/`) and its manifest (`.../collections/<id>/manifest/`), which pages like its objects.
 */
export function collectionRoutes(scope: FastifyInstance, context: TaxiiContext): void {
  const collections = `/${context.options.apiRoot}/collections/`;
  const limits = { defaultLimit: context.options.defaultPageSize, maxLimit: context.options.maxPageSize };

  scope.get(collections, async (_request, reply) =>
    sendTaxii(reply, { collections: context.collections.map(collectionResource) }),
  );

  scope.get(`${collections}:collection/`, async (request, reply) => {
    const { collection } = request.params as { collection: string };
    const found = context.collections.find((c) => c.id === collection || c.alias === collection);
    // A collection that may be neither read nor written is not shown; both here may be one or the other.
    return sendTaxii(reply, collectionResource(found ?? collectionFor(context, collection, 'read')));
  });

  scope.get(`${collections}:collection/manifest/`, async (request, reply) => {
    const collection = collectionFor(context, (request.params as { collection: string }).collection, 'read');
    const query = parseTaxiiQuery(request.query, ['id', 'type', 'version', 'spec_version'], {
      ...limits,
      defaultVersion: 'last',
    });
    const page = readPage(context, collection, query, 'manifest');
    dateAddedHeaders(reply, page.records);
    const objects = page.records.map((record) => ({
      id: record.id,
      date_added: stixTimestamp(record.dateAdded),
      version: record.version,
      media_type: stixMediaType(record.specVersion),
    }));
    return sendTaxii(reply, {
      more: page.more,
      ...(page.next === undefined ? {} : { next: page.next }),
      ...(objects.length > 0 ? { objects } : {}),
    });
  });
}
