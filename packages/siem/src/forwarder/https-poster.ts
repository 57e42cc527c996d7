import { Agent, request } from 'undici';

/** Where and how {@link HttpsPoster} posts. */
export interface HttpsPosterOptions {
  url: URL;
  /** Sent with every request (an Authorization header). */
  headers: Readonly<Record<string, string>>;
  tls: { ca?: string | string[]; rejectUnauthorized: boolean; servername?: string };
  /** Most time one request may take when no signal ends it sooner, in ms (default 30000). */
  timeoutMs?: number;
}

/** What the endpoint answered. */
export interface PostAnswer {
  status: number;
  /** The start of the body (at most 512 characters), to explain a refusal. */
  body: string;
}

const BODY_KEPT = 512;

/**
 * POSTs one event per request to an HTTP(S) endpoint through a keep-alive pool of its own, with the TLS trust the
 * options give (an extra CA, certificate checks per `security.validateCertificates`), which the client's shared pool
 * does not take. `close()` releases the pool.
 */
export class HttpsPoster {
  readonly #options: HttpsPosterOptions;
  #agent: Agent | undefined;

  constructor(options: HttpsPosterOptions) {
    this.#options = options;
  }

  /**
   * Sends `body` with `contentType`; resolves with the status whatever it is.
   *
   * @throws undici's error when no answer came (its `code`: `ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, a TLS
   *   code), or the signal's reason when it aborted.
   */
  async post(body: string, contentType: string, signal?: AbortSignal): Promise<PostAnswer> {
    const { tls } = this.#options;
    this.#agent ??= new Agent({
      connections: 4,
      keepAliveTimeout: 10_000,
      connect: {
        rejectUnauthorized: tls.rejectUnauthorized,
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.servername === undefined ? {} : { servername: tls.servername }),
      },
    });
    const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? 30_000);
    const response = await request(this.#options.url, {
      method: 'POST',
      headers: { ...this.#options.headers, 'content-type': contentType },
      body,
      dispatcher: this.#agent,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    let text = '';
    for await (const chunk of response.body) {
      if (text.length < BODY_KEPT) text += (chunk as Buffer).toString('utf8');
    }
    return { status: response.statusCode, body: text.slice(0, BODY_KEPT) };
  }

  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.close();
  }
}
