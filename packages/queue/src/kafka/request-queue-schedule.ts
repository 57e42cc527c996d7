// kafkajs 2.2.4, its last release (the project is unmaintained), schedules its request queue's next check with
// `setTimeout(check, throttledUntil - Date.now())` also when no request is waiting and the broker throttles nothing.
// `throttledUntil` is then -1 or in the past, so the delay is negative (about minus the epoch in ms): Node.js 24
// prints `TimeoutNegativeWarning` on the first use of a connection (kafkajs#1751), and runs the check after 1 ms, which
// schedules the next one the same way, every millisecond while the connection is idle (kafkajs#1704). Sources:
// - node_modules/kafkajs/src/network/requestQueue/index.js: scheduleCheckPendingRequests(), called after every
//   response (checkPendingRequests) and when a request has to wait (push).
// - https://github.com/tulios/kafkajs/issues/1751, https://github.com/tulios/kafkajs/issues/1704 (open, unfixed).
import { createRequire } from 'node:module';

interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
}

type Schedule = (this: RequestQueueState) => void;

const CORRECTED = Symbol.for('threatlib.kafkajs.scheduleCheckPendingRequests');

/**
 * Makes kafkajs's request queue schedule a check only when there is something to wait for: a waiting request, or a
 * throttle that ends in the future. With nothing waiting and no throttle, the next request (`push`) or response
 * checks the queue anyway, so the skipped timer was never needed. The rest of the method is kafkajs's own.
 *
 * Applied once per copy of kafkajs, to the copy `@threatlib/queue` uses (an application's own kafkajs, when it is the
 * same copy, gets the same correction). A kafkajs without that method (another version) is left as it is. It changes
 * no warning handling: the timer that caused the warning is no longer made.
 */
export function correctRequestQueueScheduling(): void {
  let RequestQueue: { prototype: { scheduleCheckPendingRequests?: Schedule; [CORRECTED]?: true } };
  try {
    RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
  } catch {
    return;
  }
  const prototype = RequestQueue?.prototype;
  const schedule = prototype?.scheduleCheckPendingRequests;
  if (typeof schedule !== 'function' || prototype[CORRECTED]) return;
  prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueState) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  prototype[CORRECTED] = true;
}
