// What the examples of ../shared/INTERFACE.md need around them and the document leaves out: the feed emulator
// standing in for the five feeds, the e2e servers (at the ports their scripts in e2e/services.d use), a receiver for
// plugins and log webhooks, and waits with deadlines. The examples are in the *.test.ts files beside this one, a file
// per part of the document: client (1, 6.1, 7, 8.1), plugin (4.2 registerIntegration), vault, config-sources (8.2),
// rest-server (4.1, 5, 8), queue (2.5, 4.2), storage (2.5, 4.2: the document store), search-index (2.5, 4.2, 5:
// the search index), cloud (2.5, 4.2, 5: CloudIntegration) and siem (2.1–2.4, 2.6, 4.2, 5, 7.2: SIEMConnector on
// each production platform, integrations.siem; 8.1: enterprise.siemIntegration).
//
// Not here yet, because their packages do not exist yet; each issue adds its examples when it adds the package:
// WebhookManager, the webhook event names and integrations.webhooks (4.2, 5, 6.2): issue 15, @threatlib/webhooks.
// CloudSiemIntegration (2.5, 4.2, 5): issue 17, @threatlib/cloud (its Azure half). The browser options of 8.1
// (browser, the browser storage) arrive with the browser build, which no issue schedules yet; until then core
// accepts them only at their defaults.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describeWithServices, type ProbedService, probeService } from '@threatlib/core/testing';
import { type FeedEmulator, startFeedEmulator } from '@threatlib/feed-emulator';

/** The five feed identifiers the document names, in its order. */
export const FEEDS = ['feed_urls', 'feed_otx', 'feed_abuse', 'feed_cti', 'feed_scan'] as const;
type FeedId = (typeof FEEDS)[number];

/** The e2e services the examples talk to. */
export type Service = 'redis' | 'rabbitmq' | 'kafka' | 'rsyslog' | 'ferretdb' | 'elasticsearch' | 'moto';

const SERVICES_DIR = new URL('../../services.d/', import.meta.url);

/** The variable a service script sets its port in, where it is not `<name>_port`. */
const PORT_VARIABLES: Partial<Record<Service, string>> = { elasticsearch: 'es_port' };

/** The port `e2e/services.d/<name>.sh` starts its server on (its `<name>_port=`), so the two never disagree. */
export function servicePort(service: Service): number {
  const script = readFileSync(new URL(`${service}.sh`, SERVICES_DIR), 'utf8');
  const variable = PORT_VARIABLES[service] ?? `${service}_port`;
  const match = new RegExp(`^${variable}=(\\d+)$`, 'm').exec(script);
  if (!match?.[1]) throw new Error(`e2e/services.d/${service}.sh does not set ${variable}=`);
  return Number(match[1]);
}

/** Where `e2e/services.d/rsyslog.sh` writes every message it receives (`THREATLIB_RSYSLOG_FILE`, as core's tests). */
export const RSYSLOG_MESSAGES =
  process.env.THREATLIB_RSYSLOG_FILE ?? fileURLToPath(new URL('../../.state/rsyslog/messages.log', import.meta.url));

const SERVICES: readonly Service[] = ['redis', 'rabbitmq', 'kafka', 'rsyslog', 'ferretdb', 'elasticsearch', 'moto'];

/** Which e2e servers answer, probed once per test file with a plain TCP connection. */
const probed = new Map<Service, ProbedService>(
  await Promise.all(
    SERVICES.map(
      async (service) => [service, await probeService({ name: service, port: servicePort(service) })] as const,
    ),
  ),
);

/**
 * `describe` for examples that need real servers. When one is down they are skipped, with the reason as the skipped
 * test's name, if `THREATLIB_E2E` is unset; with `THREATLIB_E2E` set (CI, `./dev test`) they fail, loudly.
 */
export function describeWith(services: Service[], title: string, body: () => void): void {
  describeWithServices(
    services.map((service) => probed.get(service) as ProbedService),
    title,
    body,
  );
}

/** A feed emulator and the `apiKeys` object form that points every feed at it (what "changing addresses" means). */
export interface EmulatedFeeds {
  emulator: FeedEmulator;
  /** `{key, endpoint}` for each feed; `feed_urls` too, so that no lookup ever leaves the machine. */
  apiKeys: Record<FeedId, { key: string; endpoint: string }>;
}

export async function startEmulatedFeeds(): Promise<EmulatedFeeds> {
  const emulator = await startFeedEmulator();
  const apiKeys = Object.fromEntries(
    FEEDS.map((feed) => [feed, { key: `${feed}-key`, endpoint: emulator.endpoints[feed] }]),
  ) as EmulatedFeeds['apiKeys'];
  return { emulator, apiKeys };
}

/** A request a {@link Receiver} got. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP endpoint standing in for a SIEM, a log collector or any receiver a plugin posts to. */
export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  readonly requests: ReceivedRequest[];
  /** Resolves once `condition(requests)` holds; rejects after `timeout` ms naming `what`. */
  until(condition: (requests: ReceivedRequest[]) => boolean, what: string, timeout?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver that answers every request with `answer(request, n)` as JSON (201 for a POST, else 200). */
export async function startReceiver(
  answer: (request: ReceivedRequest, n: number) => unknown = (_request, n) => ({ received: true, id: `rcv-${n}` }),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      res.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(request, requests.length)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    until: (condition, what, timeout) => eventually(() => condition(requests), what, timeout),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Resolves once `condition()` holds, checked every 10 ms; rejects after `timeout` ms naming `what`. For things that
 * happen on another process's time (a broker, rsyslog) or on a timer the example configured: the wait ends as soon as
 * the condition holds, and the deadline only turns a hang into a failure.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let names = 0;

/** A queue, topic or key prefix no other test, run or process uses. */
export function uniqueName(label: string): string {
  names += 1;
  return `threatlib-interface.${label}.${process.pid}-${Date.now().toString(36)}-${names}`;
}
