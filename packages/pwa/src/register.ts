// The page's side of the service worker: registers it with the `pwa` options (or removes it when `enabled` is false),
// hands it the API token, asks it to send what was queued when the page starts and when the network comes back, and
// passes its messages on.
import type { PageMessage, WorkerMessage } from './messages.js';
import { optionsQuery, type PwaOptions } from './pwa-options.js';

/** How the page registers its worker. */
export interface RegisterOptions {
  /** The application's worker script (its `sw.ts`, built), relative to the page (default `sw.js`). */
  scriptUrl?: string;
  /** The pages the worker controls, relative to the page (default `./`). */
  scope?: string;
  /**
   * The bearer token the worker sends queued requests with (read at each replay; kept by the worker in memory only,
   * never written to disk). Without it, queued requests wait.
   */
  token?: () => string | undefined;
  /** Hears what the worker says (a queued request sent, how many wait). */
  onMessage?: (message: WorkerMessage) => void;
}

/**
 * Registers the worker at `scriptUrl` with `options` on its URL (`sw.js?cacheStrategy=cache-first`, which
 * `optionsFromUrl` reads in the worker), or, with `enabled: false`, removes one registered before and what it kept.
 * Resolves with the registration, or undefined when there is none (disabled, or a browser without service workers).
 *
 * @example
 * ```ts
 * await registerServiceWorker(client.config.pwa, { scriptUrl: '/sw.js', token: () => sessionStorage.getItem('token') ?? undefined });
 * ```
 */
export async function registerServiceWorker(
  options: PwaOptions = {},
  how: RegisterOptions = {},
): Promise<ServiceWorkerRegistration | undefined> {
  if (options.enabled === false) {
    await unregisterServiceWorkers();
    return undefined;
  }
  if (!('serviceWorker' in navigator)) return undefined;
  const token = how.token ?? (() => undefined);
  const onMessage = how.onMessage;
  if (onMessage) navigator.serviceWorker.addEventListener('message', (event) => onMessage(event.data as WorkerMessage));
  const registration = await navigator.serviceWorker.register(`${how.scriptUrl ?? 'sw.js'}${optionsQuery(options)}`, {
    scope: how.scope ?? './',
  });
  const ready = await navigator.serviceWorker.ready;
  const send = (message: PageMessage) => (navigator.serviceWorker.controller ?? ready.active)?.postMessage(message);
  send({ type: 'replay', token: token() });
  window.addEventListener('online', () => send({ type: 'replay', token: token() }));
  return registration;
}

/** Tells the worker the token changed (sign-in: `replay` with it) or to forget everything (sign-out: `forget`). */
export function tellWorker(message: PageMessage): void {
  navigator.serviceWorker?.controller?.postMessage(message);
}

/** Removes the workers this origin registered, and with them what they kept offline. */
export async function unregisterServiceWorkers(): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.controller?.postMessage({ type: 'forget' } satisfies PageMessage);
  for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
}
