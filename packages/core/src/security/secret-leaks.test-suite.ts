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
