// The feeds of the memory bench's scan, in a process of their own so that their memory is not the client's: the feed
// emulator with no quota, no fault and 1 ms of latency, answering by a hash of the indicator (70% not found, 20%
// clean, 10% malicious). Sends its endpoints to the parent over IPC and serves until the parent goes.
import { startFeedEmulator } from '@threatlib/feed-emulator';

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const emulator = await startFeedEmulator({
  latencyMs: 1,
  keepRequests: 0,
  defaultBehaviour: (_feed, indicator) => {
    const bucket = fnv1a(indicator) % 100;
    return bucket < 70 ? 'not_found' : bucket < 90 ? 'clean' : 'malicious';
  },
});
process.on('disconnect', () => process.exit(0));
process.send({ endpoints: emulator.endpoints });
