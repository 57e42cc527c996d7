import { describe, expect, it } from 'vitest';
import { guardAgainstDumps } from './dump-guard.js';

function fakeProcess(execArgv: string[], nodeOptions = '', withReport = true) {
  const report = withReport ? { excludeEnv: false } : undefined;
  return { report, execArgv, env: { NODE_OPTIONS: nodeOptions } } as unknown as NodeJS.Process & {
    report: { excludeEnv: boolean };
  };
}

describe('preventDumps', () => {
  it('keeps the environment out of diagnostic reports', () => {
    const proc = fakeProcess([]);
    expect(guardAgainstDumps(proc)).toEqual([]);
    expect(proc.report.excludeEnv).toBe(true);
  });

  it('warns about every flag that can expose the heap, from the command line or NODE_OPTIONS', () => {
    const warnings = guardAgainstDumps(fakeProcess(['--inspect-brk=9229'], '--heapsnapshot-signal=SIGUSR2'));
    expect(warnings).toEqual([
      '--inspect is set: it can write or expose the heap, API keys included',
      '--heapsnapshot-signal is set: it can write or expose the heap, API keys included',
    ]);
  });

  it('says so when this Node.js cannot exclude the environment from reports', () => {
    expect(guardAgainstDumps(fakeProcess([], '', false))).toEqual([
      'this Node.js cannot keep the environment out of diagnostic reports (process.report.excludeEnv)',
    ]);
  });
});
