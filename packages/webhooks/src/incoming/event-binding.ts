import { ProblemError } from '@threatlib/core/http-server';
import { WEBHOOK_PROBLEM_TYPES } from './problem.js';
import { EVENT_NAME, type WebhookMessage } from './webhook-payload.js';

/** What decides which event a request is for, besides the request. */
export interface EventBinding {
  /** `server.pathEvents`: the sub-paths served and the event each delivers; undefined when not configured. */
  pathEvents: ReadonlyMap<string, string> | undefined;
  /** Whether the scheme signs only the body (GitHub): then neither the path nor a header may name the event. */
  bodyOnly: boolean;
  /** `server.path`, for the messages. */
  path: string;
}

/**
 * The event a request is for, taken only from what the configuration binds or the signature covers:
 * - `POST <path>/<segment>` with `pathEvents`: the event bound to `<segment>` (404 for a segment not listed);
 * - `POST <path>/<eventName>` without it: `<eventName>`, for a bare payload only under a scheme that signs a message
 *   id (Standard Webhooks: the replay cache then lets the message run for that one event); a body-only scheme
 *   (GitHub) is refused, since nothing it signs names the path;
 * - `POST <path>`: the payload's `type` (signed with the body).
 * An envelope's `type` must agree with the path's event. No header is ever read (`X-GitHub-Event` is not signed).
 *
 * @param segment the path's `<segment>`, decoded, when the request has one.
 * @throws {ProblemError} 400 when no event is named or the path and the envelope disagree; 404 for a path
 *   that names no valid or bound event.
 */
export function eventOfRequest(segment: string | undefined, message: WebhookMessage, binding: EventBinding): string {
  const { pathEvents, bodyOnly, path } = binding;
  if (segment !== undefined) {
    const bound = pathEvents?.get(segment);
    if (bound === undefined && (pathEvents !== undefined || !EVENT_NAME.test(segment))) {
      throw new ProblemError({
        type: WEBHOOK_PROBLEM_TYPES.notFound,
        title: 'Unknown event',
        status: 404,
        detail:
          pathEvents === undefined
            ? 'the path names no valid event (letters, digits, ".", "_", ":" and "-", at most 100)'
            : 'no event is bound to this path (server.pathEvents lists the paths served)',
      });
    }
    const event = bound ?? segment;
    if (message.envelope) {
      if (message.type !== event) {
        throw invalidEvent(
          `the path names the event "${event}" but the payload's type is ${JSON.stringify(shorten(message.type ?? ''))}`,
        );
      }
      return event;
    }
    if (bound === undefined && bodyOnly) {
      throw invalidEvent(
        `GitHub signs neither the path nor X-GitHub-Event, so neither can name the event: bind the path to its event with server.pathEvents ({"${segment}": "<event>"})`,
      );
    }
    return event;
  }
  if (message.type !== undefined) {
    if (!EVENT_NAME.test(message.type)) {
      throw invalidEvent('the payload\'s "type" is not an event name (letters, digits, ".", "_", ":" and "-")');
    }
    return message.type;
  }
  throw invalidEvent(
    bodyOnly
      ? `the payload names no event, and GitHub signs neither the path nor X-GitHub-Event: bind a path to its event with server.pathEvents and POST to ${path}/<that path>`
      : `the payload names no event: send {"type": "<event>", "data": {...}}, or POST to ${path}/<event>`,
  );
}

function invalidEvent(detail: string): ProblemError {
  return new ProblemError({
    type: WEBHOOK_PROBLEM_TYPES.validation,
    title: 'Invalid event',
    status: 400,
    detail,
  });
}

/** `text`, cut to `max` characters with an ellipsis. */
export function shorten(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
