// The REST server on a client whose alert store is the storage integration (`integrations.storage: {type: 'mongodb',
// uri, database}`) on FerretDB: alerts and their deliveries survive a restart of server and client, and what REST
// clients send is stored as data, never sent to the database as an operator (issue 16's acceptance).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Alert, ThreatClient, type ThreatConfig } from '@threatlib/core';
import type { Integration } from '@threatlib/core/integration';
import type { MessageQueueIntegration } from '@threatlib/queue';
import { APIServer } from '@threatlib/server';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, expect, it } from 'vitest';
import { describeWith, servicePort, uniqueName } from '../interface/support.js';
import { keysOf, MONITORING_COMMANDS, type MongoWireRecorder, startMongoWireRecorder } from './mongo-wire-recorder.js';

const FERRETDB = { host: '127.0.0.1', port: servicePort('ferretdb') };
const FERRETDB_URI = `mongodb://${FERRETDB.host}:${FERRETDB.port}`;
const RABBITMQ = `amqp://guest:guest@127.0.0.1:${servicePort('rabbitmq')}`;
const TOKEN = 'e2e-storage-token-0123456789abcdef';

const listFile = join(mkdtempSync(join(tmpdir(), 'threatlib-e2e-rest-storage-')), 'blocklist.txt');
writeFileSync(listFile, 'evil.threatlib-test.net\n');

const servers: APIServer[] = [];
const clients: ThreatClient[] = [];
const recorders: MongoWireRecorder[] = [];
const databases: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  for (const client of clients.splice(0)) await client.stop();
  for (const recorder of recorders.splice(0)) await recorder.close();
});
afterAll(async () => {
  const mongo = new MongoClient(FERRETDB_URI);
  try {
    for (const name of databases) await mongo.db(name).dropDatabase();
  } finally {
    await mongo.close();
  }
});

function database(label: string): string {
  const name = uniqueName(label)
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(-63);
  databases.push(name);
  return name;
}

/** A ticketing system the alerts go to: it refuses while `down`, then takes each alert. */
function ticketing() {
  return class Ticketing implements Integration {
    static down = true;
    static received: Alert[] = [];
    readonly retries = 5;
    async sendAlert(alert: Alert) {
      if (Ticketing.down) throw new Error('503 Service Unavailable');
      Ticketing.received.push(alert);
      return { ticket: `INC-${Ticketing.received.length}` };
    }
    async enrichIndicator() {
      return undefined;
    }
  };
}

/** Starts an API server on a free port with a client configured with `integrations.storage` on `uri`/`database`. */
async function serve(uri: string, db: string, Ticketing?: ReturnType<typeof ticketing>) {
  const client = new ThreatClient({
    sources: [],
    lists: [{ name: 'blocklist', file: listFile }],
    strategy: 'aggressive',
    security: { enforceHttps: false },
    logging: { enabled: false },
    // A minute between delivery attempts: a stop always finds a failed one waiting for its retry.
    performance: { retryDelay: 60_000 },
    integrations: { storage: { type: 'mongodb', uri, database: db } },
  } as ThreatConfig);
  if (Ticketing) client.registerIntegration('ticketing', Ticketing);
  const server = new APIServer({ port: 0, authentication: { type: 'bearer', tokens: [TOKEN] } });
  server.mount('/api/v1', client);
  servers.push(server);
  const base = await server.start();
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
    });
  return { server, client, call };
}

async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeWith(['ferretdb'], 'the REST server with integrations.storage on FerretDB', () => {
  it('keeps alerts across a restart of server and client: GET /alerts lists them, GET /alerts/{id} shows the deliveries', async () => {
    const db = database('rest_restart');
    const Ticketing = ticketing();
    const first = await serve(FERRETDB_URI, db, Ticketing);
    const posted = await first.call('/alerts', {
      method: 'POST',
      body: JSON.stringify({
        title: 'Malicious domain detected',
        severity: 'high',
        description: 'Domain flagged by threat intelligence',
        indicators: [{ type: 'domain', value: 'malicious-site.com', confidence: 95 }],
      }),
    });
    expect(posted.status).toBe(201);
    const alert = (await posted.json()) as Alert;
    expect(alert.deliveries).toEqual([{ integration: 'ticketing', status: 'pending', attempts: 0 }]);
    await eventually(
      async () => ((await (await first.call(`/alerts/${alert.id}`)).json()) as Alert).deliveries[0]?.attempts === 1,
      'the first delivery attempt to fail and be recorded',
    );
    await first.server.stop();

    // A new server and client on the same database: the alert is listed, its delivery pending, then resumed.
    Ticketing.down = false;
    const second = await serve(FERRETDB_URI, db, Ticketing);
    const listed = await second.call('/alerts');
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as { items: Alert[] };
    expect(page.items.map((a) => [a.id, a.title, a.severity])).toEqual([
      [alert.id, 'Malicious domain detected', 'high'],
    ]);
    await second.client.alerts.settled();
    const shown = await second.call(`/alerts/${alert.id}`);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toEqual({
      ...alert,
      deliveries: [
        {
          integration: 'ticketing',
          status: 'delivered',
          attempts: 2,
          lastAttemptAt: expect.any(String),
          result: { ticket: 'INC-1' },
        },
      ],
    });
    expect(Ticketing.received.map((a) => a.id)).toEqual([alert.id]);
  });

  it('REST input with $where and $function keys is stored as data: no command carries an operator from it', async () => {
    const db = database('rest_injection');
    const recorder = await startMongoWireRecorder(FERRETDB);
    recorders.push(recorder);
    const { call, client } = await serve(recorder.uri, db);
    const application = () => recorder.commands.filter((c) => !MONITORING_COMMANDS.has(c.name));
    // The start-up's own reads (the pending deliveries to resume) are done before the requests are sent.
    await client.alerts.settled();
    const sentBefore = application().length;

    // Query parameters of GET /alerts shaped as operators are refused before the store is asked.
    for (const query of [
      'minSeverity[$ne]=low',
      'since[$gt]=2020-01-01',
      `minSeverity=${encodeURIComponent('{"$ne":"low"}')}`,
      `since=${encodeURIComponent('{"$where":"sleep(1000)"}')}`,
      `cursor=${encodeURIComponent('{"$where":"sleep(1000)"}')}`,
    ]) {
      const response = await call(`/alerts?${query}`);
      expect([400, 422], query).toContain(response.status);
    }
    // An indicator that is an operator object, or its JSON, is not an indicator.
    for (const indicator of [{ $where: 'sleep(1000)' }, '{"$where":"sleep(1000)"}']) {
      const response = await call('/threats/scan', { method: 'POST', body: JSON.stringify({ indicator }) });
      expect(response.status).toBe(400);
    }
    // An alert id that looks like a filter is only an id.
    expect((await call(`/alerts/${encodeURIComponent('{"$ne":null}')}`)).status).toBe(404);
    const asked = application().slice(sentBefore);
    expect(asked.map((c) => c.name)).toEqual(['find']);
    expect(asked[0]?.body.filter).toEqual({ _id: '{"$ne":null}' });

    // An alert whose metadata carries operator keys, and a title that is an operator in JSON, is stored as it is.
    const metadata = {
      $where: 'sleep(1000)',
      nested: { $function: { body: 'function() { return true }', args: [], lang: 'js' } },
      'results.confidence': { $gte: 0 },
    };
    const posted = await call('/alerts', {
      method: 'POST',
      body: JSON.stringify({ title: '{"$where":"sleep(1000)"}', severity: 'low', metadata }),
    });
    expect(posted.status).toBe(201);
    const alert = (await posted.json()) as Alert;
    expect(alert.metadata).toEqual(metadata);
    expect((await (await call(`/alerts/${alert.id}`)).json()) as Alert).toMatchObject({ metadata });
    await call('/correlate', { method: 'POST', body: JSON.stringify({ indicator: 'evil.threatlib-test.net' }) });
    await client.integration('storage')?.flush();

    const mongo = new MongoClient(FERRETDB_URI);
    try {
      const stored = await mongo
        .db(db)
        .collection('alerts')
        .findOne({ _id: alert.id as never });
      expect(JSON.parse(stored?.alert as string)).toMatchObject({ title: '{"$where":"sleep(1000)"}', metadata });
    } finally {
      await mongo.close();
    }

    // The keys starting with "$" in every command sent are the store's own, none from the input.
    const operators = operatorsSent(recorder);
    for (const forbidden of ['$where', '$function', '$accumulator', '$expr', '$ne']) {
      expect(operators, forbidden).not.toContain(forbidden);
    }
    const insertOfAlert = recorder.commands.find(
      (c) =>
        c.name === 'insert' &&
        c.body.insert === 'alerts' &&
        (c.sequences.documents?.[0]?._id ?? c.body.documents?.[0]?._id) === alert.id,
    );
    const document = insertOfAlert?.sequences.documents?.[0] ?? insertOfAlert?.body.documents?.[0];
    expect(typeof document?.alert).toBe('string');
    expect(document?.alert).toContain('"$where":"sleep(1000)"');
  });
});

/** The keys starting with "$" in every command the server received. */
function operatorsSent(recorder: MongoWireRecorder): Set<string> {
  return new Set(
    recorder.commands.flatMap((command) =>
      keysOf({ body: command.body, sequences: command.sequences })
        .map(({ key }) => key)
        .filter((key) => key.startsWith('$')),
    ),
  );
}

describeWith(['ferretdb', 'rabbitmq'], 'the queue pipeline with integrations.storage on FerretDB', () => {
  it('queue messages carrying $where and $function are refused or stored as data: no command carries them', async () => {
    const db = database('queue_injection');
    const recorder = await startMongoWireRecorder(FERRETDB);
    recorders.push(recorder);
    const queues = {
      incoming: uniqueName('iocs'),
      processed: uniqueName('iocs.results'),
      alerts: uniqueName('iocs.alerts'),
    };
    const client = new ThreatClient({
      sources: [],
      lists: [{ name: 'blocklist', file: listFile }],
      strategy: 'aggressive',
      security: { enforceHttps: false },
      logging: { enabled: false },
      integrations: {
        storage: { type: 'mongodb', uri: recorder.uri, database: db },
        messageQueue: { type: 'rabbitmq', connection: RABBITMQ, queues },
      },
    } as ThreatConfig);
    clients.push(client);
    await client.start();
    const { processor } = client.integration('messageQueue') as MessageQueueIntegration;

    // Extra fields are ignored; an operator object or its JSON as the indicator is no indicator (dead-lettered).
    await processor.publish(queues.incoming, {
      indicator: 'evil.threatlib-test.net',
      type: 'domain',
      $where: 'sleep(1000)',
      results: { confidence: { $function: { body: 'function() { return true }', args: [], lang: 'js' } } },
    });
    await processor.publish(queues.incoming, { indicator: { $where: 'sleep(1000)' } });
    await processor.publish(queues.incoming, { indicator: '{"$where":"sleep(1000)"}' });
    await eventually(async () => processor.stats.deadLettered >= 2 && processor.stats.completed >= 1, 'the messages');
    await client.integration('storage')?.flush();

    const mongo = new MongoClient(FERRETDB_URI);
    try {
      const threats = await mongo.db(db).collection('threats').find({}).toArray();
      expect(threats.map((t) => t.indicator)).toEqual(['evil.threatlib-test.net']);
      expect(JSON.stringify(threats[0])).not.toMatch(/\$where|\$function/);
    } finally {
      await mongo.close();
    }
    const operators = operatorsSent(recorder);
    for (const forbidden of ['$where', '$function', '$accumulator', '$expr']) {
      expect(operators, forbidden).not.toContain(forbidden);
    }
  });
});
