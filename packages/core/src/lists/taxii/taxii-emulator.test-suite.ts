// A TAXII 2.1 collection for core's own tests of the TAXII list source: `GET <api root>/collections/<id>/objects/`
// with `limit`, `added_after` and `next`, the envelope's `more`, and the X-TAXII-Date-Added-First/Last headers, as
// TAXII 2.1 sections 3.4, 3.5 and 5.3 describe them. It is what the list source needs and no more; the
// interoperability tests under e2e/tests/taxii/ poll the reference server (medallion) itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseStixTimestamp, stixTimestamp } from '../../stix/stix-timestamp.js';

interface Held {
  object: Record<string, unknown>;
  /** Microseconds. */
  added: number;
}

/** One request the emulator answered. */
export interface EmulatedRequest {
  url: URL;
  authorization: string | undefined;
  accept: string | undefined;
}

export class TaxiiEmulator {
  /** The collection's id. */
  readonly collection = 'indicators-0001';
  readonly requests: EmulatedRequest[] = [];
  /** The Authorization header every request must carry (none required when undefined). */
  authorization: string | undefined;
  /** Answer this many ms late. */
  delayMs = 0;
  /** Page with `next`; when false, with `more` and X-TAXII-Date-Added-Last only. */
  sendNext = true;
  /** The server's largest page. */
  maxPage = 100;
  /** What an unauthorised request's error message says (a careless server may echo what it was sent). */
  echoAuthorization = false;
  readonly #held: Held[] = [];
  #clock = Date.parse('2026-02-01T00:00:00Z') * 1000;
  #server: Server | undefined;

  /** The API root URL, once started. */
  url = '';

  async start(): Promise<string> {
    this.#server = createServer((request, response) => {
      const answer = () => this.#answer(request, response);
      if (this.delayMs > 0) setTimeout(answer, this.delayMs);
      else answer();
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/api1/`;
    return this.url;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** Adds objects, each a microsecond after the one before; returns the date_added of the last. */
  add(objects: readonly object[]): string {
    for (const object of objects) {
      this.#clock += 1;
      this.#held.push({ object: object as Record<string, unknown>, added: this.#clock });
    }
    return stixTimestamp(this.#clock);
  }

  /** The objects requests asked for with `added_after`, in order. */
  get addedAfter(): Array<string | null> {
    return this.requests.map((r) => r.url.searchParams.get('added_after'));
  }

  #answer(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://emulator');
    this.requests.push({ url, authorization: request.headers.authorization, accept: request.headers.accept });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/taxii+json;version=2.1', ...headers });
      response.end(JSON.stringify(body));
    };
    if (this.authorization !== undefined && request.headers.authorization !== this.authorization) {
      send(401, {
        title: 'Unauthorized',
        description: this.echoAuthorization
          ? `the credentials ${String(request.headers.authorization)} are not known`
          : 'unknown credentials',
        http_status: '401',
      });
      return;
    }
    if (url.pathname !== `/api1/collections/${this.collection}/objects/`) {
      send(404, { title: 'Not found', http_status: '404' });
      return;
    }
    const after = url.searchParams.get('added_after');
    const afterMicros = after === null ? Number.NEGATIVE_INFINITY : parseStixTimestamp(after);
    if (afterMicros === undefined) {
      send(400, { title: 'Bad added_after', http_status: '400' });
      return;
    }
    const limit = Math.min(Number(url.searchParams.get('limit') ?? this.maxPage), this.maxPage);
    const next = url.searchParams.get('next');
    const matching = this.#held.filter((held) => held.added > afterMicros);
    const start = next === null ? 0 : Number(next.slice(1));
    const page = matching.slice(start, start + limit);
    const more = start + page.length < matching.length;
    const headers: Record<string, string> = {};
    const first = page[0];
    const last = page.at(-1);
    if (first && last) {
      headers['x-taxii-date-added-first'] = stixTimestamp(first.added);
      headers['x-taxii-date-added-last'] = stixTimestamp(last.added);
    }
    send(
      200,
      {
        more,
        ...(more && this.sendNext ? { next: `p${start + page.length}` } : {}),
        ...(page.length > 0 ? { objects: page.map((held) => held.object) } : {}),
      },
      headers,
    );
  }
}

/** A STIX 2.1 indicator of `pattern`, numbered `n` (its id), with `extra` fields. */
export function stixIndicator(n: number, pattern: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    created: '2026-01-01T00:00:00.000Z',
    modified: '2026-01-01T00:00:00.000Z',
    pattern,
    pattern_type: 'stix',
    valid_from: '2026-01-01T00:00:00Z',
    ...extra,
  };
}
