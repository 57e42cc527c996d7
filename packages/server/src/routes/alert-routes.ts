import type { ThreatClient } from '@threatlib/core';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { pageWithinBudget } from '../http/budgeted-page.js';
import { PROBLEM_TYPES, ProblemError, validationProblem } from '../http/problem.js';
import { reportedIssues } from '../http/validation-issues.js';
import * as S from '../schemas.js';
import { parse } from './parse-input.js';

/** What the alert routes need of the server. */
export interface AlertRoutesDeps {
  client: ThreatClient;
  /** Most bytes in one page of `GET /alerts`. */
  alertPageBytes: number;
}

function alertNotFound(): ProblemError {
  return new ProblemError({
    type: PROBLEM_TYPES.notFound,
    title: 'Alert not found',
    status: 404,
    detail: 'no alert with this id is stored (the memory store keeps the newest 10,000)',
  });
}

/**
 * `HEAD|GET /alerts` (pages of stored alerts), `POST /alerts`, `GET /alerts/{id}` (one alert with its deliveries) and
 * `POST /alerts/{id}/redeliver`.
 */
export function registerAlertRoutes(app: FastifyInstance, { client, alertPageBytes }: AlertRoutesDeps): void {
  const alertQuery = (query: z.infer<typeof S.AlertsQuery>) => ({
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    ...(query.minSeverity === undefined ? {} : { minSeverity: query.minSeverity }),
    ...(query.severity === undefined ? {} : { severity: query.severity }),
    ...(query.since === undefined ? {} : { since: new Date(query.since) }),
  });
  // The store filters by severity; a store written before `severity` existed ignores it, so a page is filtered
  // here too (such a store's pages may then come short, their cursors still the store's own).
  const listAlerts = async (query: z.infer<typeof S.AlertsQuery>, limit: number) => {
    const page = await client.alerts.list({ ...alertQuery(query), limit });
    const only = query.severity;
    return only === undefined ? page : { ...page, items: page.items.filter((a) => only.includes(a.severity)) };
  };
  // HEAD gives GET's status and headers without building the listing: one alert is asked for, which checks the
  // cursor and filters as GET would.
  app.head('/alerts', async (request, reply) => {
    const query = parse(S.AlertsQuery, request.query, 'query');
    await listAlerts(query, 1);
    return reply.type('application/json; charset=utf-8').send();
  });
  // A page holds at most alertPageBytes: it ends early, with its cursor, when the next alert would pass them.
  app.get('/alerts', async (request, reply) => {
    const query = parse(S.AlertsQuery, request.query, 'query');
    const page = await pageWithinBudget((limit) => listAlerts(query, limit), query.limit, alertPageBytes);
    return reply.type('application/json; charset=utf-8').send(page);
  });

  // Stored and delivered to every started integration in the background, as client.alerts.add does.
  app.post('/alerts', async (request, reply) => {
    const body = parse(S.AlertCreate, request.body, 'request body');
    const alert = await client.alerts.add(body);
    return reply.code(201).send(alert);
  });

  // Delivered again to each started integration that has not taken it (failed or left pending), in the background.
  app.post('/alerts/:id/redeliver', { config: { bodyOptional: true } }, async (request, reply) => {
    const { id } = parse(S.AlertIdParams, request.params, 'path');
    // No body, or an empty object (`null` and anything else are refused).
    if (request.body !== undefined) {
      const checked = S.RedeliverRequest.safeParse(request.body);
      if (!checked.success) throw validationProblem('request body', reportedIssues(checked.error.issues));
    }
    const alert = await client.alerts.redeliver(id);
    if (!alert) throw alertNotFound();
    return reply.code(202).type('application/json; charset=utf-8').send(alert);
  });

  // One alert with its deliveries: each integration's status, attempts and last error.
  app.get('/alerts/:id', async (request, reply) => {
    const { id } = parse(S.AlertIdParams, request.params, 'path');
    const alert = await client.alerts.get(id);
    if (!alert) throw alertNotFound();
    return reply.type('application/json; charset=utf-8').send(alert);
  });
}
