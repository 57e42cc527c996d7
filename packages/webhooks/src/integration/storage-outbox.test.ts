import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { DocumentStoreStorage } from '@threatlib/storage';
import { describeWithFerretDB, E2E_FERRETDB_URI, uniqueDatabase } from '@threatlib/test-utils/ferretdb';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, expect, it } from 'vitest';
import { Receiver } from '../outgoing/receiver.test-suite.js';
import type { WebhooksIntegration } from './webhooks-integration.js';

/*
 * Issue 15, point 5: with integrations.storage configured, the webhooks' outbox is the storage's database, not a
 * file. A delivery the receiver could not take waits there, and a client started again on the same database (after a
 * restart, on any machine) sends it, with the same webhook-id.
 */

const SECRET = `whsec_${Buffer.from('the storage outbox test secret').toString('base64')}`;
const databases: string[] = [];
const clients: ThreatClient[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.stop()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(async () => {
  const admin = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database: 'admin' });
  try {
    for (const name of databases) await admin.client.db(name).dropDatabase();
  } finally {
    await admin.stop();
  }
});

/** A client configured with the storage on FerretDB and an outgoing webhook to `url`: configuration only. */
function client(database: string, url: string): ThreatClient {
  const made = new ThreatClient(
    {
      // No feed is asked here; a client needs one configured.
      sources: ['feed_urls'],
      security: { enforceHttps: false },
      integrations: {
        storage: { type: 'mongodb', uri: E2E_FERRETDB_URI, database },
        webhooks: {
          outgoing: [{ name: 'soc', url, events: ['high-confidence-threat'], secret: SECRET }],
          delivery: { allowPrivateNetworks: ['127.0.0.1'], retrySchedule: [200, 200, 200, 200, 200], jitter: 0 },
        },
      },
    } as ThreatConfig,
    {
      env: false,
      logger: silentLogger,
      loadIntegrationPackage: (name) => (name === '@threatlib/webhooks' ? import('../index.js') : import(name)),
    },
  );
  clients.push(made);
  return made;
}

/** The outbox's documents, read straight from the server. */
async function outboxDocuments(database: string): Promise<Array<Record<string, unknown>>> {
  const reader = new DocumentStoreStorage({ uri: E2E_FERRETDB_URI, database });
  try {
    return await reader.client.db(database).collection('webhookOutbox').find({}).toArray();
  } finally {
    await reader.stop();
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithFerretDB('integrations.webhooks with integrations.storage', () => {
  it('keeps a delivery the receiver could not take in the database, and a new client on it delivers it, same id', async () => {
    const database = uniqueDatabase('outbox');
    databases.push(database);
    // The receiver's address, with nothing listening there yet: the endpoint is down.
    const reserved = await new Receiver().listen();
    const port = reserved.port;
    const url = reserved.url();
    await reserved.close();

    const first = client(database, url);
    await first.start();
    const webhooks = first.integration('webhooks') as WebhooksIntegration;
    const [result] = await webhooks.manager.trigger('high-confidence-threat', {
      indicator: 'evil.example',
      confidence: 92,
      sources: ['feed_otx', 'feed_abuse'],
    });
    expect(result).toMatchObject({ endpoint: 'soc', status: 'pending', attempts: 1 });
    const messageId = result?.messageId as string;

    const waiting = await outboxDocuments(database);
    expect(waiting).toEqual([
      expect.objectContaining({ outbox: 'webhooks', endpoint: 'soc', messageId, event: 'high-confidence-threat' }),
    ]);
    // The attempt count is written after the attempt, in the background (trigger does not wait for it).
    await until(
      async () => (((await outboxDocuments(database))[0]?.attempts as number | undefined) ?? 0) >= 1,
      'the failed attempt counted in the outbox',
    );
    expect(webhooks.stats().outgoing.endpoints.soc).toMatchObject({ pending: 1, delivered: 0 });
    await first.stop();
    expect(await outboxDocuments(database)).toHaveLength(1);

    // The receiver is back; a client started again on the same database sends what waited there.
    const receiver = await new Receiver().listen('127.0.0.1', port);
    receivers.push(receiver);
    const second = client(database, url);
    await second.start();
    await until(() => receiver.requests.length > 0, 'the delivery after the restart');
    await until(async () => (await outboxDocuments(database)).length === 0, 'the outbox to empty');

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.headers['webhook-id']).toBe(messageId);
    expect(new Webhook(SECRET).verify(request?.body as string, request?.headers as Record<string, string>)).toEqual({
      type: 'high-confidence-threat',
      timestamp: expect.any(String),
      data: { indicator: 'evil.example', confidence: 92, sources: ['feed_otx', 'feed_abuse'] },
    });
    expect((second.integration('webhooks') as WebhooksIntegration).stats().outgoing.endpoints.soc).toMatchObject({
      delivered: 1,
      pending: 0,
    });
  });
});
