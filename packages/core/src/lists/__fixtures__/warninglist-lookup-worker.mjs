// Loads a MISP warninglist and times lookups in a worker thread, so that a test can give up on a lookup that never
// ends (a backtracking regular expression) by terminating the thread, without blocking the test's own thread.
// The worker runs core's TypeScript source directly (Node strips the types); the sources import each other as
// `./x.js`, as NodeNext requires, and the hook maps such an import to `./x.ts` when no `.js` exists.
import { registerHooks } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
});

const { compileMispWarninglist } = await import('../misp-warninglist.js');
const { list, type, inputs } = workerData;
let warninglist;
try {
  warninglist = compileMispWarninglist(list);
} catch (error) {
  parentPort.postMessage({ refused: error.message });
}
if (warninglist !== undefined) {
  parentPort.postMessage({ loaded: true });
  for (const value of inputs) {
    const started = performance.now();
    const hit = warninglist.match({ type, value, input: value, defanged: false });
    parentPort.postMessage({ value: value.length, matched: hit !== undefined, ms: performance.now() - started });
  }
  parentPort.postMessage({ done: true });
}
