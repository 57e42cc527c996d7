import { connect } from 'node:net';
import { describe, it } from 'vitest';

/** A server some tests need: its name (as `./dev services up <name>` knows it) and where it listens. */
export interface E2EService {
  name: string;
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

/** A server probed once: whether it accepted a connection then. */
export interface ProbedService extends E2EService {
  reachable: boolean;
}

/** Whether something accepts a TCP connection at `host:port` within a second. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

/** Probes the service with a plain TCP connection (do it once per test file, at its top level). */
export async function probeService(service: E2EService): Promise<ProbedService> {
  return { ...service, reachable: await portOpen(service.port, service.host) };
}

/**
 * `describe` for tests that need real servers, each probed beforehand ({@link probeService}). When one did not answer,
 * the tests are skipped, with the reason (and how to start it) as the skipped test's name, if `THREATLIB_E2E` is
 * unset; if it is set (CI, `./dev test`), one failing test says which server is missing instead.
 *
 * @example
 * ```ts
 * const ferretdb = await probeService({ name: 'ferretdb', port: 27018 });
 * describeWithServices([ferretdb], 'the document store', () => { it('stores', async () => { ... }); });
 * ```
 */
export function describeWithServices(services: readonly ProbedService[], title: string, body: () => void): void {
  describe(title, () => {
    const down = services.filter((service) => !service.reachable);
    if (down.length === 0) {
      body();
      return;
    }
    const where = down.map((s) => `${s.name} at ${s.host ?? '127.0.0.1'}:${s.port}`).join(', ');
    const start = `./dev services up ${down.map((s) => s.name).join(' ')}`;
    if (!process.env.THREATLIB_E2E) {
      it.skip(`needs ${where} (start it with: ${start}; THREATLIB_E2E=1 makes this fail instead)`);
      return;
    }
    it(`needs ${where}`, () => {
      throw new Error(`THREATLIB_E2E is set but ${where} does not answer; run: ${start}`);
    });
  });
}
