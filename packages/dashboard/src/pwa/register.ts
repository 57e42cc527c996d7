// The page's side of the service worker: registers it with the `pwa` options, hands it the token, asks it to send
// what was queued when the page starts and when the network comes back, and passes its messages on.
import { token } from '../api.js';
import type { PageMessage, WorkerMessage } from './messages.js';
import { optionsQuery, type PwaOptions } from './pwa-options.js';

/** Registers `sw.js` (beside the page) with `options`; `onMessage` hears what the worker says. */
export async function registerServiceWorker(
  options: PwaOptions,
  onMessage: (message: WorkerMessage) => void,
): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event) => onMessage(event.data as WorkerMessage));
  await navigator.serviceWorker.register(`sw.js${optionsQuery(options)}`, { scope: './' });
  const ready = await navigator.serviceWorker.ready;
  const send = (message: PageMessage) => (navigator.serviceWorker.controller ?? ready.active)?.postMessage(message);
  send({ type: 'replay', token: token() });
  window.addEventListener('online', () => send({ type: 'replay', token: token() }));
}

/** Tells the worker the token changed (sign-in) or to forget everything (sign-out). */
export function tellWorker(message: PageMessage): void {
  navigator.serviceWorker?.controller?.postMessage(message);
}

/** `pwa.enabled: false`: removes the worker a previous visit registered, and with it what it kept offline. */
export async function unregisterServiceWorkers(): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.controller?.postMessage({ type: 'forget' } satisfies PageMessage);
  for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
}
