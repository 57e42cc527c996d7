// What the page and the service worker tell each other (postMessage).

/** The page's messages to the worker. */
export type PageMessage =
  /**
   * The page started, signed in, or the network is back (`online`): send what was queued, in order, with `token`
   * (which the worker keeps in its memory only, for the replays to come).
   */
  | { type: 'replay'; token: string | undefined }
  /** Sign-out: forget the token, the stored verdicts, the cached API answers and the queue. */
  | { type: 'forget' };

/** The worker's messages to the pages. */
export type WorkerMessage =
  /** A queued request was sent: its answer's status and JSON body. */
  | { type: 'replayed'; url: string; method: string; status: number; body: unknown; queuedAt: number }
  /** How many requests wait to be sent. */
  | { type: 'queue'; waiting: number };

/** The header of the 202 answer the worker gives for a request it queued. */
export const QUEUED_HEADER = 'x-threatlib-queued';
