import type { Argon2idImplementation, Argon2idInput } from './argon2id.js';
import type { Argon2idWorkerReply, Argon2idWorkerRequest } from './argon2id-worker-messages.js';

// What this module uses of a platform's Web Workers; core's Node.js types have none (Node.js has no global Worker,
// so there `typeof Worker` is 'undefined'). Declared rather than typed from the DOM so that bundlers see the one
// form they all understand, `new Worker(new URL('./file.js', import.meta.url), {type: 'module'})`, and emit the file.
interface WorkerHandle {
  onmessage: ((event: { data: Argon2idWorkerReply }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  postMessage(message: Argon2idWorkerRequest, transfer: ArrayBuffer[]): void;
  terminate(): void;
}
declare const Worker: (new (url: URL, options: { type: 'module' }) => WorkerHandle) | undefined;

/** Set once a worker could not be started here: later derivations go straight to the fallback. */
let workersFailed = false;

/** Whether this platform has Web Workers (a page; not Node.js) and they have not failed to start here. */
export function workersAvailable(): boolean {
  return typeof Worker === 'function' && !workersFailed;
}

/**
 * Computes Argon2id in a new Web Worker running `argon2-worker.js`, then terminates it. When the worker cannot be
 * started or its script cannot be loaded, derives with `fallback` on this thread instead, and does so from then on.
 */
export async function deriveInWorker(input: Argon2idInput, fallback: Argon2idImplementation): Promise<Uint8Array> {
  if (input.associatedData) throw new RangeError('the Argon2id worker takes no associated data (the vault uses none)');
  let worker: WorkerHandle;
  try {
    if (typeof Worker !== 'function') throw new Error('no Web Workers here');
    worker = new Worker(new URL('./argon2-worker.js', import.meta.url), { type: 'module' });
  } catch {
    workersFailed = true;
    return fallback.derive(input);
  }
  // The worker gets copies it owns (transferred, so no copy stays in this thread), and zeroes the password's.
  const message = input.message.slice();
  const secret = input.secret?.slice();
  const request: Argon2idWorkerRequest = {
    message,
    nonce: input.nonce.slice(),
    secret,
    parallelism: input.parallelism,
    tagLength: input.tagLength,
    memory: input.memory,
    passes: input.passes,
  };
  const reply = await new Promise<Argon2idWorkerReply | 'failed to start'>((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    // An error event before any reply: the script did not load (or the worker died); every error of the
    // derivation itself comes back as a reply.
    worker.onerror = () => resolve('failed to start');
    worker.postMessage(request, (secret ? [message.buffer, secret.buffer] : [message.buffer]) as ArrayBuffer[]);
  }).finally(() => worker.terminate());
  if (reply === 'failed to start') {
    workersFailed = true;
    return fallback.derive(input);
  }
  if ('error' in reply) throw new Error(`Argon2id failed in its worker: ${reply.error}`);
  return reply.key;
}
