import type * as z from 'zod';
import type { ConfigurationIssue } from '../errors/configuration-error.js';
import { isSecretField, REDACTED, redactText } from '../logging/redaction.js';
import { formatPath } from './format-path.js';
import { suggestOption } from './suggest-option.js';

/** What {@link toConfigurationIssues} may use besides the issues. */
export interface IssueContext {
  /** The value that was validated: each message then says what it got at its path. */
  input?: unknown;
  /** The schema it was validated against: an unknown option then names the option meant, when one is close. */
  schema?: z.core.$ZodType;
}

/**
 * Turns zod's issues into `{path, message}` pairs, one per offending option (an unknown key is its own path). With
 * the `input`, each message ends with what it got (`Too big: expected number to be <=50, got 51`), a secret's value
 * shown only by its kind and length; with the `schema`, an unknown option names the option meant when one is close
 * (`unknown option; did you mean performance.rateLimit.perFeed.feed_otx?`).
 */
export function toConfigurationIssues(
  issues: readonly z.core.$ZodIssue[],
  context: IssueContext = {},
): ConfigurationIssue[] {
  const out: ConfigurationIssue[] = [];
  for (const issue of issues) {
    const chosen = issue.code === 'invalid_union' ? formFitting(issue) : undefined;
    if (chosen) {
      out.push(...toConfigurationIssues(chosen, context));
      continue;
    }
    const base = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = context.schema ? suggestOption(context.schema, issue.path, key) : undefined;
        out.push({
          path: base ? `${base}.${key}` : key,
          message: suggestion ? `unknown option; did you mean ${suggestion}?` : 'unknown option',
        });
      }
      continue;
    }
    out.push({ path: base || '(root)', message: withReceived(issue, context) });
  }
  return out;
}

/**
 * The issues of the one form of a union the input is of (an object given where a string or an object is taken),
 * with their full paths: "email.to: expected an array" says more than "expected a string or an object". Undefined
 * when the input is of no form, or of several.
 */
function formFitting(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | undefined {
  const ofItsForm = issue.errors.filter(
    (errors) => !errors.some((error) => error.path.length === 0 && error.code === 'invalid_type'),
  );
  const [only] = ofItsForm;
  if (ofItsForm.length !== 1 || !only || only.length === 0) return undefined;
  return only.map((error) => ({ ...error, path: [...issue.path, ...error.path] }));
}

/** The issue's message ending with what the input held at its path (zod's own "received <type>" replaced). */
function withReceived(issue: z.core.$ZodIssue, context: IssueContext): string {
  if (!('input' in context) || /\bgot\b/.test(issue.message)) return issue.message;
  const found = valueAt(context.input, issue.path);
  if (!found.reached) return issue.message;
  const message = issue.message.replace(/,? received \w+$/, '');
  return `${message}, got ${shownValue(found.value, isSecretPath(issue.path))}`;
}

/** The value at `path` in `input`, if the path leads anywhere (a missing option is `undefined`, and reached). */
function valueAt(input: unknown, path: readonly PropertyKey[]): { reached: boolean; value?: unknown } {
  let value = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return { reached: false };
    if (!Object.hasOwn(value, part)) return { reached: true, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return { reached: true, value };
}

/** Maps whose every value is a secret whatever its key (`apiKeys.feed_otx`, `headers.x-custom-auth`, `users.alice`). */
const SECRET_MAPS: ReadonlySet<string> = new Set(['apiKeys', 'headers', 'users']);

/**
 * Whether the option at `path` holds a secret (an API key, a password, a header) whose value is never shown: its
 * name is a secret's (`password`, `key`, `clientSecret`) or it is a value of a map of secrets (`apiKeys.feed_otx`).
 */
function isSecretPath(path: readonly PropertyKey[]): boolean {
  const names = path.filter((part): part is string => typeof part === 'string');
  const last = names.at(-1);
  if (last === undefined) return false;
  if (isSecretField(last)) return true;
  // A value of a map of secrets, or an element of one (`headers.authorization[0]`).
  const parent = typeof path.at(-1) === 'number' ? names.at(-1) : names.at(-2);
  return (
    (parent !== undefined && SECRET_MAPS.has(parent)) || (typeof path.at(-1) === 'number' && SECRET_MAPS.has(last))
  );
}

/** Most characters of a refused string a message quotes. */
const MAX_QUOTED_CHARS = 60;

/** `user:password@` at the start of a string, with no `scheme://` before it. */
const BARE_URL_CREDENTIALS = /^([^\s/?#@:"'<>]*:)(?!\[redacted\]@)[^\s/?#@"'<>]+@/;

/**
 * How a message shows a refused value: a string quoted and cut to 60 characters, a number or boolean as written,
 * anything else by its kind. A secret's value is never shown, only its kind and length.
 */
function shownValue(value: unknown, secret: boolean): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    if (secret) return value.length === 0 ? 'an empty string' : `a string of ${value.length} characters (not shown)`;
    // Credentials in a URL and secret query parameters are scrubbed from whatever is quoted, those of a URL refused
    // for want of its scheme (`user:password@host`) too: redactText looks for them after a `scheme://`.
    // Scrubbed before it is cut, so that a password the cut would split is not half shown.
    const shown = redactText(value).replace(BARE_URL_CREDENTIALS, `$1${REDACTED}@`);
    return JSON.stringify(shown.length > MAX_QUOTED_CHARS ? `${shown.slice(0, MAX_QUOTED_CHARS)}…` : shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return secret ? `a ${typeof value}` : String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
