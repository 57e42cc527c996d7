import type { ResolvedConfig } from '../config/schema.js';

const REDACTED = '[redacted]';
/** Option names whose string values are secrets, wherever they sit in the configuration. */
const SECRET_OPTIONS = new Set(['key', 'password', 'secret', 'clientSecret', 'encryptionKey', 'token']);
/** Shorter values would match ordinary words; no real key or password is this short. */
const MIN_SECRET_LENGTH = 4;

/**
 * Every secret a configuration holds: API keys, passwords, client secrets, tokens, and the value of every header
 * given for a webhook (an Authorization header can be under any name).
 */
export function configSecrets(config: ResolvedConfig): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, name: string, inHeaders: boolean): void => {
    if (typeof value === 'string') {
      if (inHeaders || SECRET_OPTIONS.has(name)) found.add(value);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) visit(child, key, name === 'headers');
  };
  visit(config, '', false);
  for (const entry of Object.values(config.apiKeys)) if (typeof entry === 'string') found.add(entry);
  return [...found].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
}

/**
 * Replaces each of `secrets` in `text` with `[redacted]`, and any `Bearer <token>`. A last line of defence for what
 * leaves the process in an alert or a log line: threatlib builds alert text from values that never hold a secret,
 * and this makes sure a message echoed by a mail server or a third-party feed does not either.
 */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  // Longest first: a secret containing another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(REDACTED);
  return out.replace(/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, `Bearer ${REDACTED}`);
}
