import { url as inspectorUrl } from 'node:inspector';

/**
 * What `memoryProtection.preventDumps` can do from inside Node.js, which is little: there is no `mlock`, no
 * `setrlimit(RLIMIT_CORE)` and no `prctl(PR_SET_DUMPABLE)` binding. It keeps the environment (where API keys often
 * live) out of diagnostic reports, and returns a warning for every way the process is open to having its memory
 * read: an open inspector, heap-snapshot flags. Core dumps and swap must be turned off outside Node (`ulimit -c 0`,
 * systemd `LimitCORE=0`, encrypted or no swap); the README says so.
 */
export function guardAgainstDumps(process: NodeJS.Process = globalThis.process): string[] {
  const warnings: string[] = [];
  const report = process.report as (NodeJS.ProcessReport & { excludeEnv?: boolean }) | undefined;
  if (report && 'excludeEnv' in report) report.excludeEnv = true;
  else warnings.push('this Node.js cannot keep the environment out of diagnostic reports (process.report.excludeEnv)');
  if (inspectorUrl()) {
    warnings.push('the inspector is open: anyone connected to it can read API keys from memory');
  }
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  for (const flag of ['--inspect', '--heapsnapshot-signal', '--heapsnapshot-near-heap-limit', '--heap-prof']) {
    if (flags.some((f) => f === flag || f.startsWith(`${flag}=`) || f.startsWith(`${flag}-`))) {
      warnings.push(`${flag} is set: it can write or expose the heap, API keys included`);
    }
  }
  return warnings;
}
