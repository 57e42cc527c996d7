import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { requestClientKey } from '../http/client-address.js';
import { continueIfExpected } from '../http/expect-continue.js';
import { PROBLEM_TYPES, ProblemError } from '../http/problem.js';
import type { AuthFailureLimiter } from './auth-failure-limiter.js';
import type { Authenticator } from './authenticator.js';
import { VerificationGate } from './verification-gate.js';

/** What {@link authenticateRoutes} needs. */
export interface AuthenticationGuard {
  authenticator: Authenticator;
  /** Shared by every mount: an address blocked under one prefix is blocked under all. */
  failures: AuthFailureLimiter;
  /** Sends a refusal (the server's problem response). */
  refuse: (error: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;
}

/**
 * Authenticates every route `scope` declares from now on, after the per-address rate limit: that limit is a
 * route-level `onRequest` hook added by `@fastify/rate-limit` when the route is declared, and route-level hooks run
 * after the scope's own, so a scope-level authentication hook would answer 401 before any request was counted. Here
 * the hook is appended to the route's own, after the rate limiter's.
 */
export function authenticateRoutes(scope: FastifyInstance, guard: AuthenticationGuard): void {
  const hook = authenticationHook(guard);
  scope.addHook('onRoute', (route: RouteOptions) => {
    const own = route.onRequest;
    route.onRequest = own === undefined ? [hook] : Array.isArray(own) ? [...own, hook] : [own, hook];
  });
}

/**
 * The hook: refuses an address blocked for failing too often (429, whatever it sends), refuses two `Authorization`
 * headers, authenticates, and counts each refused credential toward the address's block. What can be decided at
 * once (a server bearer token, a malformed header) is decided and counted before the next request is looked at; a
 * check that takes time goes through a {@link VerificationGate}, so the count stays exact under pipelining.
 */
export function authenticationHook({ authenticator, failures, refuse }: AuthenticationGuard): onRequestHookHandler {
  const gate = gateOf(failures);
  // Callback style: an async hook costs a promise and a microtask per request, and the valid bearer token is checked
  // synchronously.
  return (request, reply, done) => {
    const address = requestClientKey(request);
    const blocked = failures.blockedFor(address);
    if (blocked > 0) return void refuse(blockedError(blocked, failures), request, reply);
    const header = request.headers.authorization;
    if (header !== undefined && countAuthorization(request.raw.rawHeaders) > 1) {
      failures.recordFailure(address);
      return void refuse(
        new ProblemError({
          type: PROBLEM_TYPES.malformedRequest,
          title: 'Malformed request',
          status: 400,
          detail: 'send one Authorization header: this request has more than one',
        }),
        request,
        reply,
      );
    }
    const decided = authenticator.authenticateSync(header);
    if (decided instanceof ProblemError) {
      // No credentials at all guess nothing (a client's first try before a challenge): the rate limit counts it.
      if (header !== undefined) failures.recordFailure(address);
      return void refuse(decided, request, reply);
    }
    if (decided) {
      continueIfExpected(request, reply);
      return done();
    }
    gate.enter(
      address,
      () =>
        authenticator.authenticate(header, request.method).then(
          () => {
            gate.leave(address);
            continueIfExpected(request, reply);
            done();
          },
          (error: unknown) => {
            // A refused credential counts; a missing scope (403) or an unreachable issuer (503) does not.
            if (error instanceof ProblemError && error.problem.status === 401) failures.recordFailure(address);
            gate.leave(address);
            refuse(error, request, reply);
          },
        ),
      () => {
        const ms = failures.blockedFor(address);
        refuse(ms > 0 ? blockedError(ms, failures) : busyError(), request, reply);
      },
    );
  };
}

/** One gate per limiter: every hook counting toward the same blocks (each mount, the probes) shares its places. */
const gates = new WeakMap<AuthFailureLimiter, VerificationGate>();
function gateOf(failures: AuthFailureLimiter): VerificationGate {
  let gate = gates.get(failures);
  if (!gate) {
    gate = new VerificationGate(failures);
    gates.set(failures, gate);
  }
  return gate;
}

function blockedError(ms: number, failures: AuthFailureLimiter): ProblemError {
  const seconds = Math.ceil(ms / 1000);
  const { max, windowMs } = failures.limit;
  return new ProblemError(
    {
      type: PROBLEM_TYPES.rateLimited,
      title: 'Too many failed authentications',
      status: 429,
      detail: `${max} failed authentications from this address within ${Math.round(windowMs / 1000)} s: every request from it is refused for ${seconds} s more, with valid credentials too`,
    },
    { 'retry-after': String(seconds) },
  );
}

function busyError(): ProblemError {
  return new ProblemError(
    {
      type: PROBLEM_TYPES.rateLimited,
      title: 'Too many requests',
      status: 429,
      detail: 'too many requests from this address are waiting for their credentials to be checked; retry shortly',
    },
    { 'retry-after': '1' },
  );
}

/** How many `Authorization` headers the request has: node keeps only the first in `request.headers`. */
function countAuthorization(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count;
}
