// bench/storage: writing through @threatlib/storage beside the raw driver or client doing the same server work. See
// ../README.md ("storage") for what is measured and how to read it. Each part is a script of its own, run in a child
// process (so one part's heap and sockets do not weigh on the other), when it is there:
//   document-store.mjs  threat records through the storage integration beside the mongodb driver's insertMany
//   search-index.mjs    documents through SearchIndexStorage beside the Elasticsearch client's bulk helper
// Needs the e2e servers: bash e2e/services up ferretdb elasticsearch
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PARTS = [
  // FerretDB takes a few milliseconds an upsert: seven runs of 50,000 histories updates take about half an hour.
  {
    file: 'document-store.mjs',
    title: 'document store: threat records and histories (default settings), ours beside the mongodb driver',
    deadlineS: 3_600,
  },
  { file: 'search-index.mjs', title: 'search index: documents, ours beside the bulk helper', deadlineS: 900 },
];

function runPart(path, deadlineS) {
  return new Promise((resolve) => {
    // --quick (and any other argument) passes on; --expose-gc lets a part collect one run's garbage before the next.
    const child = spawn(process.execPath, ['--expose-gc', path, ...process.argv.slice(2)], { stdio: 'inherit' });
    const timer = setTimeout(() => {
      console.error(`  ${path} still running after ${deadlineS} s: killed`);
      child.kill('SIGKILL');
    }, deadlineS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? 'ok' : `exited with ${signal ?? `code ${code}`}`);
    });
  });
}

let crashed = 0;
for (const part of PARTS) {
  const path = fileURLToPath(new URL(part.file, import.meta.url));
  console.log(`\n## ${part.title}\n`);
  if (!existsSync(path)) {
    console.log(`  (not there yet: bench/storage/${part.file})`);
    continue;
  }
  const outcome = await runPart(path, Number(process.env.BENCH_DEADLINE_S ?? part.deadlineS));
  if (outcome !== 'ok') {
    crashed += 1;
    console.error(`  ${part.file} ${outcome}`);
  }
}
process.exit(crashed > 0 ? 1 : 0);
