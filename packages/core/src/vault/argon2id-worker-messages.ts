/** What the page sends the Argon2id worker (argon2-worker.ts): the inputs, with the password's bytes transferred. */
export interface Argon2idWorkerRequest {
  message: Uint8Array;
  nonce: Uint8Array;
  secret?: Uint8Array | undefined;
  parallelism: number;
  tagLength: number;
  /** KiB. */
  memory: number;
  passes: number;
}

/** The worker's answer: the derived key, or why it could not derive one. */
export type Argon2idWorkerReply = { key: Uint8Array } | { error: string };
