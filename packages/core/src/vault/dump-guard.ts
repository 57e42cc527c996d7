import { nodeBuiltin } from '../runtime/node-builtin.js';

/** What the guard reads and sets of Node's `process` (declared here: the module also compiles for pages). */
interface GuardedProcess {
  report?: object & { excludeEnv?: boolean };
  execArgv: string[];
  env: Record<string, string | undefined>;
}

/**
 * What `memoryProtection.preventDumps` can do from inside Node.js, which is little: there is no `mlock`, no
 * `setrlimit(RLIMIT_CORE)` and no `prctl(PR_SET_DUMPABLE)` binding. It keeps the environment (where API keys often
 * live) out of diagnostic reports, and returns a warning for every way the process is open to having its memory
 * read: an open inspector, heap-snapshot flags. Core dumps and swap must be turned off outside Node (`ulimit -c 0`,
 * systemd `LimitCORE=0`, encrypted or no swap); the README says so. In a page there is no process to guard: it says
 * so.
 */
export function guardAgainstDumps(
  process: GuardedProcess | undefined = (globalThis as { process?: GuardedProcess }).process,
): string[] {
  // A page has no process (or the small `process.env` a bundler defines): nothing to guard there.
  if (!Array.isArray(process?.execArgv)) {
    return ['preventDumps does nothing in a browser: a page cannot keep its memory out of dumps'];
  }
  const warnings: string[] = [];
  const { report } = process;
  if (report && 'excludeEnv' in report) report.excludeEnv = true;
  else warnings.push('this Node.js cannot keep the environment out of diagnostic reports (process.report.excludeEnv)');
  if (nodeBuiltin<{ url(): string | undefined }>('node:inspector')?.url()) {
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
