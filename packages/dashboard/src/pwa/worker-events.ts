// The service worker's messages, passed on to whichever part of the page listens (the scan page hears its replayed
// scans, the header the queue's length).
import type { WorkerMessage } from '@threatlib/pwa';

const listeners = new Set<(message: WorkerMessage) => void>();

/** Calls `listener` with each message of the service worker until the returned function is called. */
export function onWorkerMessage(listener: (message: WorkerMessage) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Passes a message of the worker to every listener. */
export function emitWorkerMessage(message: WorkerMessage): void {
  for (const listener of listeners) listener(message);
}
