import { inspect } from 'node:util';

/**
 * What the no-secret tests share: each secret is looked for as written and in the encodings a careless line would
 * carry it in (base64, hex, URL-encoded).
 *
 * @throws {Error} at the first text holding any form of any secret, quoting the text around it.
 */
export function expectNoSecretIn(texts: readonly string[], secrets: readonly string[]): void {
  for (const secret of secrets) {
    const forms = [
      secret,
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('hex'),
      encodeURIComponent(secret),
    ];
    for (const text of texts) {
      for (const form of forms) {
        const at = text.indexOf(form);
        if (at !== -1) throw new Error(`a secret leaked: ...${text.slice(Math.max(0, at - 200), at + 50)}...`);
      }
    }
  }
}

/**
 * The ways an object gets shown without anyone meaning to show its secrets: `JSON.stringify` (a log line, an API
 * answer), `util.inspect` at any depth (what `console.log` prints), `String(value)`, and every string reached by
 * walking enumerable properties from it (what a logger's serializer or a deep-copying helper sees).
 */
function shownForms(value: unknown): string[] {
  let json: string;
  try {
    json = JSON.stringify(value) ?? '';
  } catch (error) {
    // A cycle, a BigInt: JSON.stringify fails, and whatever it would have written is nowhere.
    json = `JSON.stringify failed: ${(error as Error).message}`;
  }
  const strings: string[] = [];
  walkEnumerable(value, strings, new Set());
  let text: string;
  try {
    text = String(value);
  } catch {
    text = ''; // An object with no prototype has no toString: String() throws, and shows nothing.
  }
  return [json, inspect(value, { depth: Number.POSITIVE_INFINITY }), text, ...strings];
}

function walkEnumerable(value: unknown, strings: string[], seen: Set<object>): void {
  if (typeof value === 'string') {
    strings.push(value);
    return;
  }
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const key of Object.keys(value)) {
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[key];
    } catch {
      continue;
    }
    walkEnumerable(item, strings, seen);
  }
}

/**
 * Fails when any form of any secret shows through {@link shownForms} of `value`, naming `what` and quoting the text
 * around the secret.
 */
export function expectNoSecretShown(what: string, value: unknown, secrets: readonly string[]): void {
  try {
    expectNoSecretIn(shownForms(value), secrets);
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}
