// One client of a cluster, in a process of its own, for the tests that need several processes. The test sends
// {config} over IPC; the process starts the client, says "ready", scans the indicators of each {go, indicators} it is
// sent, reports every result and the cluster events it sees, and exits when told {stop}.
import { ThreatClient } from '../../client/threat-client.js';
import type { ThreatConfig } from '../../config/schema.js';
import { silentLogger } from '../../logging/logger.js';

interface Start {
  config: ThreatConfig;
}

const send = (message: unknown) => process.send?.(message);

process.once('message', async ({ config }: Start) => {
  const client = new ThreatClient(config, { env: false, logger: silentLogger });
  client.on('clusterDegraded', (event) => send({ event: 'clusterDegraded', detail: event }));
  client.on('clusterRestored', (event) => send({ event: 'clusterRestored', detail: event }));
  await client.start();
  process.on('message', async (message: { go?: boolean; indicators?: string[]; stop?: boolean; quotas?: boolean }) => {
    if (message.quotas) send({ quotas: await client.quotas() });
    if (message.stop) {
      await client.stop();
      process.exit(0);
    }
    if (!message.go) return;
    const results: Record<string, Array<{ feed: string; status: string; verdict: string; cached: boolean }>> = {};
    let done = 0;
    for await (const item of client.scoutMany(message.indicators ?? [])) {
      if (!item.ok) continue;
      results[item.result.indicator] = item.result.results.map(({ feed, status, verdict, cached }) => ({
        feed,
        status,
        verdict,
        cached,
      }));
      done += 1;
      if (done % 10 === 0) send({ progress: done });
    }
    send({ results, feeds: client.feedStatus() });
  });
  send({ ready: true });
});
