// Runs every vitest project once with THREATLIB_E2E=1 (services are up, so tests that need one must find it) and
// ends with the one summary line CI reads: "N passed, N failed" plus ", N skipped" when any were skipped.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'threatlib-tests-'));
const report = join(dir, 'report.json');
const result = spawnSync(
  'pnpm',
  [
    'exec',
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, THREATLIB_E2E: '1' } },
);

let summary;
try {
  summary = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  console.log(`vitest exited with ${result.status ?? result.signal} and wrote no report`);
  console.log('0 passed, 1 failed');
  process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const passed = summary.numPassedTests;
// A test file that failed with no failed test of its own (it did not load, or a beforeAll/afterAll hook threw and
// its tests were reported skipped) counts as one failure, so the summary line never says "0 failed" for it.
const brokenFiles = summary.testResults.filter(
  (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
).length;
const failed = summary.numFailedTests + brokenFiles;
const skipped = summary.numPendingTests + summary.numTodoTests;
const ok = failed === 0 && result.status === 0 && passed > 0;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(ok ? 0 : 1);
