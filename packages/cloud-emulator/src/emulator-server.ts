import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readEmulatorRequest, sendEmulatorResponse } from '@threatlib/siem-emulator';
import type { CloudRequest, CloudResponse, CloudService } from './cloud-service.js';

/** Options of {@link startEmulatorServer}. */
export interface EmulatorServerOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Serve HTTPS with this key and certificate (PEM); plain HTTP without. */
  tls?: { key: string; cert: string };
  /** How many requests to keep in `requests` (default 10,000). */
  keepRequests?: number;
}

/** A request the emulator received, with the service that took it and the status it answered. */
export interface RecordedRequest extends CloudRequest {
  service: string | undefined;
  status: number | undefined;
}

/** A running emulator: one server, the services reached by path. */
export interface EmulatorServer {
  /** `http://127.0.0.1:<port>` (or `https://`). */
  readonly url: string;
  readonly port: number;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Forgets requests and every service's state. */
  reset(): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 serving `services`. */
export async function startEmulatorServer(
  services: readonly CloudService[],
  options: EmulatorServerOptions = {},
): Promise<EmulatorServer> {
  const keep = options.keepRequests ?? 10_000;
  const requests: RecordedRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const request: CloudRequest = await readEmulatorRequest(req);
    const service = services.find((s) => s.handles(request));
    const recorded: RecordedRequest = { ...request, service: service?.service, status: undefined };
    requests.push(recorded);
    if (requests.length > keep) requests.splice(0, requests.length - keep);
    const response: CloudResponse = service
      ? await service.handle(request)
      : { status: 404, body: { message: `no emulated cloud API at ${request.method} ${request.path}` } };
    recorded.status = response.status;
    send(res, response);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      send(res, { status: 500, body: { emulatorError: (error as Error).message } });
    });
  };
  const { port, close } = await listenOnLoopback(listener, { port: options.port, tls: options.tls });

  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    reset() {
      requests.length = 0;
      for (const service of services) service.reset();
    },
    close,
  };
}

/** Answers with `response`; JSON typed as the cloud APIs type it. */
function send(res: ServerResponse, response: CloudResponse): void {
  sendEmulatorResponse(res, response, 'application/json');
}
