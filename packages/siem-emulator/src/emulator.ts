import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorRequest } from './emulator-http.js';
import { listenOnLoopback, readEmulatorRequest, sendEmulatorResponse as send } from './emulator-http.js';
import type { VendorEmulator, VendorName } from './vendor.js';

/** The test certificate authority that signed the emulator's certificate (for `localhost`, `127.0.0.1`, `::1`). */
export const TEST_CA: string = readFileSync(new URL('../certs/ca.pem', import.meta.url), 'utf8');

/** What the injected faults do to the next requests. */
export type Fault =
  /** The vendor's own "busy" answer (503 or 429, with its body). */
  | 'busy'
  /** Never answers (until the emulator closes). */
  | 'hang'
  /** Closes the connection without an answer. */
  | 'reset';

/** Options of {@link startSiemEmulator}. */
export interface SiemEmulatorOptions {
  /** Default 0: any free port. */
  port?: number;
  /**
   * Serve HTTPS (default true) with the bundled test certificate (trust {@link TEST_CA}), or with `{key, cert}`.
   * `false` serves plain HTTP.
   */
  tls?: boolean | { key: string; cert: string };
  /** How many requests to keep in `requests` (default 10,000). */
  keepRequests?: number;
}

/** A request the emulator received, with the vendor that took it and the status it answered. */
export interface RecordedRequest extends EmulatorRequest {
  vendor: VendorName | undefined;
  status: number | undefined;
}

/** A running emulator. Vendors are reached by path on the one server. */
export interface SiemEmulator {
  /** `https://127.0.0.1:<port>` (or `http://`). */
  readonly url: string;
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly protocol: 'https' | 'http';
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Makes the next `count` requests (of `vendor`, or any) fail with `fault`. */
  failNext(count: number, fault: Fault, vendor?: VendorName): void;
  /**
   * How many requests a `hang` fault has held since the emulator started (or was reset), answered or not: a test sees
   * that the request it made hang has arrived, instead of guessing with a delay.
   */
  hung(): number;
  /** Forgets requests, faults and every vendor's state. */
  reset(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts an emulator serving `vendors` on 127.0.0.1. */
export async function startEmulatorServer(
  vendors: readonly VendorEmulator[],
  options: SiemEmulatorOptions = {},
): Promise<SiemEmulator> {
  const keep = options.keepRequests ?? 10_000;
  const requests: RecordedRequest[] = [];
  const faults: { fault: Fault; vendor: VendorName | undefined }[] = [];
  const hanging = new Set<ServerResponse>();
  let hung = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const request = await readEmulatorRequest(req);
    const vendor = vendors.find((v) => v.handles(request));
    const recorded: RecordedRequest = { ...request, vendor: vendor?.vendor, status: undefined };
    requests.push(recorded);
    if (requests.length > keep) requests.splice(0, requests.length - keep);
    if (!vendor) {
      recorded.status = 404;
      send(res, { status: 404, body: { error: `no emulated SIEM API at ${request.path}` } });
      return;
    }
    const faultIndex = faults.findIndex((f) => f.vendor === undefined || f.vendor === vendor.vendor);
    if (faultIndex >= 0) {
      const fault = faults.splice(faultIndex, 1)[0]?.fault;
      if (fault === 'hang') {
        hanging.add(res);
        hung += 1;
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (fault === 'reset') {
        req.socket.destroy();
        return;
      }
      const busy = vendor.busy(request);
      recorded.status = busy.status;
      send(res, busy);
      return;
    }
    const response = await vendor.handle(request);
    recorded.status = response.status;
    send(res, response);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      send(res, { status: 500, body: { emulatorError: (error as Error).message } });
    });
  };
  const tls =
    options.tls === false
      ? undefined
      : typeof options.tls === 'object'
        ? options.tls
        : {
            key: readFileSync(new URL('../certs/server-key.pem', import.meta.url), 'utf8'),
            cert: readFileSync(new URL('../certs/server.pem', import.meta.url), 'utf8'),
          };
  const { port, close } = await listenOnLoopback(listener, { port: options.port, tls });
  const protocol = tls ? 'https' : 'http';

  return {
    url: `${protocol}://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    protocol,
    get requests() {
      return requests;
    },
    failNext(count, fault, vendor) {
      for (let i = 0; i < count; i++) faults.push({ fault, vendor });
    },
    hung() {
      return hung;
    },
    reset() {
      requests.length = 0;
      hung = 0;
      faults.length = 0;
      for (const vendor of vendors) vendor.reset();
    },
    async close() {
      for (const res of hanging) res.destroy();
      await close();
    },
  };
}
