// A consumer process for the loss tests: a ThreatClient with the queue pipeline registered, started, and stopped on
// SIGTERM. The test sends the configuration over IPC, waits for "ready", and may SIGKILL it at any moment.
import { silentLogger, ThreatClient, type ThreatConfig } from '@threatlib/core';
import { registerMessageQueue } from '../integration/queue-integration.js';
import type { MessageQueueOptions } from '../options/processor-options.js';

interface Start {
  config: ThreatConfig;
  queue: MessageQueueOptions;
}

process.once('message', async (message: Start) => {
  const client = new ThreatClient(message.config, { env: false, logger: silentLogger });
  registerMessageQueue(client, message.queue);
  await client.start();
  process.send?.({ ready: true });
  process.once('SIGTERM', async () => {
    await client.stop();
    process.exit(0);
  });
});
