import type { z } from 'zod';
import type { ConfigurationIssue } from '../errors/configuration-error.js';

/** Renders a schema path as users write it: `performance.circuitBreaker.resetTimeout`, `sources[2]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text ? `.${String(part)}` : String(part);
  }
  return text;
}

/** Turns zod's issues into `{path, message}` pairs, one per offending option (an unknown key is its own path). */
export function toConfigurationIssues(issues: readonly z.core.$ZodIssue[]): ConfigurationIssue[] {
  const out: ConfigurationIssue[] = [];
  for (const issue of issues) {
    const base = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: base ? `${base}.${key}` : key, message: 'unknown option' });
      }
      continue;
    }
    out.push({ path: base || '(root)', message: issue.message });
  }
  return out;
}
