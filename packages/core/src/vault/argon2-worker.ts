// The Web Worker in which a page computes Argon2id for its vault (see argon2id-worker-client.ts, which starts it):
// `hash-wasm`'s WebAssembly Argon2id, off the page's main thread. One request, one answer; the page terminates the
// worker after it, which frees the WebAssembly memory (64 MiB with the vault's defaults).
import { argon2id } from 'hash-wasm';
import type { Argon2idWorkerReply, Argon2idWorkerRequest } from './argon2id-worker-messages.js';

// This file runs in a worker, whose global scope core's Node.js types do not describe: what it uses of it, named.
declare const self: {
  onmessage: ((event: { data: Argon2idWorkerRequest }) => void) | null;
  postMessage(message: Argon2idWorkerReply, transfer?: ArrayBuffer[]): void;
};

self.onmessage = ({ data }) => {
  void answer(data);
};

async function answer(request: Argon2idWorkerRequest): Promise<void> {
  try {
    const key = await argon2id({
      password: request.message,
      salt: request.nonce,
      ...(request.secret ? { secret: request.secret } : {}),
      iterations: request.passes,
      parallelism: request.parallelism,
      memorySize: request.memory,
      hashLength: request.tagLength,
      outputType: 'binary',
    });
    self.postMessage({ key }, [key.buffer as ArrayBuffer]);
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  } finally {
    // The password was transferred here: this is its only copy.
    request.message.fill(0);
    request.secret?.fill(0);
  }
}
