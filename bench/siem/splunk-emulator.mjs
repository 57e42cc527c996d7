// The Splunk HEC emulator of bench/siem in a process of its own, so that its parsing of every event runs beside the
// client under test instead of on its event loop. Speaks to the parent over IPC:
//   parent -> {op: 'reset'} | {op: 'received'} | {op: 'close'}
//   child  -> {op: 'ready', host, port, ca} once listening, then one answer per request.
import { SPLUNK_DEFAULTS, startSiemEmulator, TEST_CA } from '@threatlib/siem-emulator';

// A request count well above a run's (10,000 alerts in batches of a few hundred), so none is forgotten mid-run.
const emulator = await startSiemEmulator({ keepRequests: 100_000 });

/** CPU time of this process since the last reset: the emulator's share of a run. */
let cpuAtReset = process.cpuUsage();

function received() {
  const cpu = process.cpuUsage(cpuAtReset);
  // testConnection's empty probe (answered 400 "No data", by design) is not a delivery.
  const posts = emulator.requests.filter((r) => r.path === '/services/collector/event' && r.raw.length > 0);
  return {
    events: emulator.splunk.events.length,
    requests: emulator.splunk.acceptedRequests,
    bytes: posts.reduce((sum, r) => sum + (r.status === 200 ? r.raw.length : 0), 0),
    refused: posts.filter((r) => r.status !== 200).length,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

// The parent gone (finished or crashed): nothing left to serve.
process.on('disconnect', () => process.exit(0));

process.on('message', async (message) => {
  switch (message.op) {
    case 'reset':
      emulator.reset();
      cpuAtReset = process.cpuUsage();
      process.send({ op: 'reset' });
      break;
    case 'received':
      process.send({ op: 'received', ...received() });
      break;
    case 'close':
      await emulator.close();
      process.disconnect();
      break;
  }
});

process.send({
  op: 'ready',
  host: emulator.host,
  port: emulator.port,
  ca: TEST_CA,
  hecToken: SPLUNK_DEFAULTS.hecToken,
  username: SPLUNK_DEFAULTS.username,
  password: SPLUNK_DEFAULTS.password,
});
