import { allocBytes, type HostBytes, randomBytes, utf8Bytes, utf8Text } from '../bytes/host-bytes.js';

/** How a {@link ProtectedBytes} holds its secret. */
export interface ProtectionOptions {
  /** Hold the bytes XOR-masked with a random pad of the same length, unmasked only while in use. */
  obfuscate: boolean;
  /** Overwrite the bytes (and the pad) with zeros when erased, instead of only dropping them. */
  secureErase: boolean;
}

/**
 * A secret held in a Buffer of its own, so it can be zeroed: JavaScript strings are immutable and may be copied by
 * V8, Buffers are neither. With `obfuscate`, the bytes are held XOR-masked with a random pad, so a scan of the
 * heap for the plain secret (a core dump, a heap snapshot) does not find it while it is idle. This is a speed bump,
 * not protection against someone who can read the process's memory: the pad sits beside the masked bytes.
 */
export class ProtectedBytes {
  readonly #data: HostBytes;
  readonly #pad: HostBytes | undefined;
  readonly #options: ProtectionOptions;
  #erased = false;

  /** Takes ownership of `bytes`: they are masked in place and zeroed on erase. */
  constructor(bytes: HostBytes, options: ProtectionOptions) {
    this.#data = bytes;
    this.#options = options;
    if (options.obfuscate) {
      this.#pad = randomBytes(bytes.length);
      xorInto(this.#data, this.#pad);
    }
  }

  /** Copies `text` (UTF-8) into bytes of their own, never a slice of Node's shared pool. */
  static fromString(text: string, options: ProtectionOptions): ProtectedBytes {
    return new ProtectedBytes(utf8Bytes(text), options);
  }

  /** Length of the secret in bytes. */
  get length(): number {
    return this.#data.length;
  }

  /** Whether {@link erase} was called. */
  get erased(): boolean {
    return this.#erased;
  }

  /**
   * Calls `fn` with the plain bytes in a temporary Buffer that is zeroed as soon as `fn` returns. `fn` must be
   * synchronous and must not keep the Buffer.
   */
  use<T>(fn: (bytes: HostBytes) => T): T {
    const plain = this.copy();
    try {
      return fn(plain);
    } finally {
      plain.fill(0);
    }
  }

  /** A plain copy of the secret; the caller zeroes it when done (for asynchronous work such as key derivation). */
  copy(): HostBytes {
    if (this.#erased) throw new Error('ProtectedBytes used after erase');
    const plain = allocBytes(this.#data.length);
    plain.set(this.#data);
    if (this.#pad) xorInto(plain, this.#pad);
    return plain;
  }

  /**
   * The secret as a string, for the one place that needs it (a request header). The string cannot be erased; the
   * temporary bytes it was made from are.
   */
  reveal(): string {
    return this.use((bytes) => utf8Text(bytes));
  }

  /** Forgets the secret, zeroing its bytes first when `secureErase` is on. Idempotent. */
  erase(): void {
    if (this.#erased) return;
    this.#erased = true;
    if (this.#options.secureErase) {
      this.#data.fill(0);
      this.#pad?.fill(0);
    }
  }
}

function xorInto(target: Uint8Array, pad: Uint8Array): void {
  for (let i = 0; i < target.length; i++) target[i] = (target[i] as number) ^ (pad[i] as number);
}
