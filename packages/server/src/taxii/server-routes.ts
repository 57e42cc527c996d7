import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TAXII_MEDIA_TYPE } from './media-types.js';
import type { TaxiiContext } from './taxii-context.js';
import { sendTaxii, TaxiiError } from './taxii-error.js';

/**
 * TAXII 2.1 section 4, server information: the discovery (`GET /`, the prefix itself: `/taxii2/`), the API root
 * (`GET /<api root>/`) and the status of a POST (`GET /<api root>/status/<id>/`).
 */
export function serverRoutes(scope: FastifyInstance, context: TaxiiContext): void {
  const { options } = context;
  const root = `/${options.apiRoot}/`;

  scope.get('/', async (request, reply) => {
    const apiRoot = `${baseUrl(context, request)}${options.apiRoot}/`;
    return sendTaxii(reply, {
      title: options.title,
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.contact === undefined ? {} : { contact: options.contact }),
      default: apiRoot,
      api_roots: [apiRoot],
    });
  });

  scope.get(root, async (_request, reply) =>
    sendTaxii(reply, {
      title: `${options.title}: threatlib`,
      description:
        'The indicators of the threats threatlib concluded (read-only), and a collection whose indicators threatlib lists.',
      versions: [TAXII_MEDIA_TYPE],
      max_content_length: options.maxContentLength,
    }),
  );

  scope.get(`${root}status/:statusId/`, async (request, reply) => {
    const { statusId } = request.params as { statusId: string };
    const status = context.statuses.get(statusId);
    if (status === undefined) {
      throw new TaxiiError(
        404,
        'Status not found',
        `no status ${JSON.stringify(statusId.slice(0, 80))}: statuses are kept ${Math.round(options.statusRetentionMs / 60_000)} minutes, by the server that took the POST`,
      );
    }
    return sendTaxii(reply, status);
  });
}

/** The URL of the prefix as the client reaches it: `publicUrl`, else made from the request (its Host). */
function baseUrl(context: TaxiiContext, request: FastifyRequest): string {
  if (context.options.publicUrl !== undefined) return context.options.publicUrl;
  return `${request.protocol}://${request.host}${context.prefix}/`;
}
