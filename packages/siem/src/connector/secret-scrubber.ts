/** Secrets shorter than this are not scrubbed: replacing every "ab" in a message would leave nothing readable. */
const MIN_SECRET_LENGTH = 4;

/**
 * Removes known secrets from texts: each as given, URL-encoded, and in base64 (as a `Basic` header carries
 * `user:password`). The set is live: a platform adds secrets it derives (an access token) as it gets them.
 */
export class SecretScrubber {
  readonly secrets: Set<string>;

  constructor(secrets: Iterable<string | undefined> = []) {
    this.secrets = new Set([...secrets].filter((s): s is string => typeof s === 'string'));
  }

  /** `text` with every known secret replaced by `[REDACTED]`. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])) {
        if (out.includes(form)) out = out.split(form).join('[REDACTED]');
      }
    }
    return out;
  }
}
