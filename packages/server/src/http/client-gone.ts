import type { ServerResponse } from 'node:http';

/** Why a lookup was stopped: the client closed its connection before its answer, which now has nowhere to go. */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the answer was sent');
    this.name = 'ClientGone';
  }
}

/**
 * A signal aborted, with a {@link ClientGone}, when the client closes its connection before the answer to its request
 * is written: handed to `client.scout`/`correlate`, it stops the lookup (its feed requests aborted, its place in a
 * queue given up, its timers cleared) instead of letting it run to its time limit for nobody.
 *
 * The response's `close` is the sign, not the request's: a request's `close` comes as soon as its body has been
 * read, long before the lookup ends, while the response closes either once written (nothing to stop) or when the
 * connection goes.
 */
export function abortedWhenClientGoes(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Gone already, between the body being read and this call: the close event is past.
  if (response.destroyed && !response.writableFinished) controller.abort(new ClientGone());
  else {
    response.once('close', () => {
      if (!response.writableFinished) controller.abort(new ClientGone());
    });
  }
  return controller.signal;
}
