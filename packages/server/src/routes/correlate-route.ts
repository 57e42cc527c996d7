import type { CorrelationResult, ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import { abortedWhenClientGoes } from '../http/client-gone.js';
import * as S from '../schemas.js';
import { parse } from './parse-input.js';

/** `client.correlate` with the request's type, if any, and the signal that stops it when the client goes. */
export async function correlate(
  client: ThreatClient,
  indicator: string,
  type: S.ScanType | undefined,
  signal: AbortSignal,
): Promise<CorrelationResult> {
  return client.correlate(indicator, type === undefined ? { signal } : { type, signal });
}

/** `POST /correlate`: the full correlation result of one indicator. */
export function registerCorrelateRoute(app: FastifyInstance, client: ThreatClient): void {
  app.post('/correlate', async (request, reply) => {
    const body = parse(S.CorrelateRequest, request.body, 'request body');
    return correlate(client, body.indicator, body.type, abortedWhenClientGoes(reply.raw));
  });
}
