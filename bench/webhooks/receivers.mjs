// The bench's receivers, in a process of their own so that the sender being measured has its core to itself:
// RECEIVERS HTTP servers on 127.0.0.1 that answer 204 and count what they got, per webhook-id. The parent talks to it
// over IPC: {reset} clears the counts, {report} asks for them.
import { createServer } from 'node:http';

const count = Number(process.argv[2] ?? 5);
const servers = [];
let received = 0;
let connections = 0;
const ids = new Map();

for (let i = 0; i < count; i++) {
  const server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      received += 1;
      const id = `${i}:${req.headers['webhook-id'] ?? ''}`;
      ids.set(id, (ids.get(id) ?? 0) + 1);
      res.writeHead(204);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
}

process.on('message', (message) => {
  if (message === 'reset') {
    received = 0;
    connections = 0;
    ids.clear();
    process.send({ reset: true });
  } else if (message === 'report') {
    let duplicates = 0;
    let signed = 0;
    for (const times of ids.values()) if (times > 1) duplicates += times - 1;
    for (const id of ids.keys()) if (!id.endsWith(':')) signed += 1;
    process.send({ received, connections, distinct: ids.size, duplicates, withId: signed });
  } else if (message === 'close') {
    for (const server of servers) server.close();
    process.disconnect();
  }
});
process.send({ ports: servers.map((server) => server.address().port) });
