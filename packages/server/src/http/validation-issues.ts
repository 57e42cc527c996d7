import type { z } from 'zod';

/** The most issues a validation problem lists; the rest are counted in a last line. */
const MAX_REPORTED_ISSUES = 20;
const MAX_KEYS_NAMED = 10;
const MAX_KEY = 40;
const MAX_PATH = 400;
const MAX_MESSAGE = 200;

/**
 * A schema's issues as a validation problem lists them (`{path, message}`), bounded whatever the input: at most
 * {@link MAX_REPORTED_ISSUES} issues, at most ten unknown keys named, and keys, paths and messages cut short. A body
 * of 200,000 wrong items or 100,000 unknown keys would otherwise be answered with a problem larger than itself,
 * repeating what it was sent.
 */
export function reportedIssues(issues: readonly z.core.$ZodIssue[]): Array<{ path: string; message: string }> {
  const reported = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const path = shorten(issue.path.map((part) => shorten(String(part), MAX_KEY)).join('.'), MAX_PATH);
    if (issue.code !== 'unrecognized_keys') return { path, message: shorten(issue.message, MAX_MESSAGE) };
    const named = issue.keys.slice(0, MAX_KEYS_NAMED).map((key) => shorten(key, MAX_KEY));
    const more = issue.keys.length - named.length;
    return {
      path: path || `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
      message: path ? `unknown field ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}` : 'unknown field',
    };
  });
  const left = issues.length - reported.length;
  if (left > 0) reported.push({ path: '', message: `and ${left} more issue${left === 1 ? '' : 's'}` });
  return reported;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
