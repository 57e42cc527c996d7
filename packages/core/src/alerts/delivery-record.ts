import { isSecretField, redactSecrets, redactText } from '../logging/redaction.js';
import { scrubSecrets } from '../monitoring/secret-scrubber.js';

/** Longest `lastError` kept on a delivery (the schema's limit). */
const MAX_ERROR_CHARS = 2000;
/** Largest integration answer kept as a delivery's `result`, in bytes of JSON. */
const MAX_RESULT_BYTES = 16 * 1024;

/**
 * A failed attempt's error as a delivery's `lastError`: its name (unless plain `Error`) and message, with every
 * secret removed (credentials in URLs, `Bearer` tokens, `password=` pairs, and each of `secrets` verbatim), at most
 * 2000 characters.
 */
export function deliveryErrorText(error: unknown, secrets: readonly string[]): string {
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);
  const text = scrubSecrets(redactText(`${name}${message}`), secrets);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

/**
 * What an integration's `sendAlert` resolved with, as a delivery keeps it: JSON only, secret fields redacted, and
 * at most {@link MAX_RESULT_BYTES} (a larger answer is replaced by a note of its size). Undefined when there is
 * nothing JSON can hold.
 */
export function deliveryResult(result: unknown): unknown {
  if (result === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch {
    return { omitted: 'the answer is not JSON' };
  }
  if (json === undefined) return undefined;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_RESULT_BYTES) {
    return { omitted: `the answer was ${bytes} bytes as JSON; at most ${MAX_RESULT_BYTES} are kept` };
  }
  return redactSecrets(JSON.parse(json) as unknown);
}

/**
 * The secret strings in an integration's options (any field whose name is secret: `token`, `password`,
 * `secretAccessKey`, every header value), to scrub from what its errors say.
 */
export function optionSecrets(options: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, secret: boolean, depth: number): void => {
    if (depth > 16) return;
    if (typeof value === 'string') {
      if (secret && value.length >= 4) found.add(value);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value))
      visit(child, secret || key === 'headers' || isSecretField(key), depth + 1);
  };
  visit(options, false, 0);
  return [...found];
}
