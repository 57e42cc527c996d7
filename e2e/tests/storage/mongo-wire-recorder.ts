// A TCP relay between a MongoDB driver and the server that decodes every command the driver sends (OP_MSG, the only
// opcode drivers of MongoDB 3.6 and later send), so a test can see exactly what reached the server whatever the
// driver does inside. Loopback only; nothing is changed on the way.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { BSON, type Document } from 'mongodb';

/** One command as the server received it: its body and its document sequences (`documents` of an insert...). */
interface RecordedCommand {
  name: string;
  body: Document;
  sequences: Record<string, Document[]>;
}

export interface MongoWireRecorder {
  /** `mongodb://127.0.0.1:<port>/?directConnection=true`: point the driver here. */
  uri: string;
  /** Every command received so far, in order. */
  commands: RecordedCommand[];
  close(): Promise<void>;
}

const OP_MSG = 2013;
/** Commands a driver's server monitoring sends on its own, whatever the application does. */
export const MONITORING_COMMANDS: ReadonlySet<string> = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
]);

/** Starts a relay to `target` (`127.0.0.1:27018`) on a free loopback port. */
export async function startMongoWireRecorder(target: { host: string; port: number }): Promise<MongoWireRecorder> {
  const commands: RecordedCommand[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target);
    sockets.add(client).add(upstream);
    for (const socket of [client, upstream]) {
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (message.readInt32LE(12) === OP_MSG) commands.push(decodeMessage(message));
      }
    });
    upstream.pipe(client);
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    commands,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An OP_MSG: header (16 bytes), flag bits, then sections: kind 0 the body, kind 1 a named sequence of documents. */
function decodeMessage(message: Buffer): RecordedCommand {
  const flags = message.readUInt32LE(16);
  const end = flags & 1 ? message.length - 4 : message.length; // checksumPresent: a CRC-32C trails the sections
  let offset = 20;
  let body: Document = {};
  const sequences: Record<string, Document[]> = {};
  while (offset < end) {
    const kind = message[offset];
    offset += 1;
    if (kind === 0) {
      const size = message.readInt32LE(offset);
      body = BSON.deserialize(message.subarray(offset, offset + size));
      offset += size;
    } else {
      const size = message.readInt32LE(offset);
      const sectionEnd = offset + size;
      let cursor = offset + 4;
      const nul = message.indexOf(0, cursor);
      const identifier = message.toString('utf8', cursor, nul);
      cursor = nul + 1;
      const documents: Document[] = [];
      while (cursor < sectionEnd) {
        const docSize = message.readInt32LE(cursor);
        documents.push(BSON.deserialize(message.subarray(cursor, cursor + docSize)));
        cursor += docSize;
      }
      sequences[identifier] = documents;
      offset = sectionEnd;
    }
  }
  return { name: Object.keys(body)[0] ?? '', body, sequences };
}

/** Every key of `value` at any depth (objects and arrays), with its path. */
export function keysOf(value: unknown, path = ''): Array<{ key: string; path: string }> {
  const out: Array<{ key: string; path: string }> = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value, path }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (Array.isArray(item.value)) {
      const parent = item.path;
      item.value.forEach((v, i) => {
        stack.push({ value: v, path: `${parent}[${i}]` });
      });
    } else if (item.value !== null && typeof item.value === 'object' && !(item.value instanceof Date)) {
      if ((item.value as { _bsontype?: unknown })._bsontype !== undefined) continue;
      for (const [key, child] of Object.entries(item.value)) {
        const at = item.path === '' ? key : `${item.path}.${key}`;
        out.push({ key, path: at });
        stack.push({ value: child, path: at });
      }
    }
  }
  return out;
}
