import { REDACTED } from '../logging/redaction.js';
import { redactedView } from '../security/redacted-view.js';
import type { ResolvedConfig } from './schema.js';

/**
 * The configuration as `client.config` shows it: each `apiKeys` entry keeps its feed and settings with its key
 * `[redacted]`, and everything else goes through `redactedView` (passwords, secrets, tokens, credentials, header
 * values and the passwords of URLs, at any depth, the integrations' options included). Functions (event handlers,
 * a transport's filter) stay as they are.
 */
export function redactedConfig(config: ResolvedConfig): ResolvedConfig {
  const apiKeys = Object.fromEntries(
    Object.entries(config.apiKeys).map(([feed, entry]) => [
      feed,
      // An object entry's key is redacted by its name, and a URL's password or key parameter in its endpoint.
      typeof entry === 'string' ? REDACTED : redactedView(entry),
    ]),
  );
  return { ...redactedView({ ...config, apiKeys: {} }), apiKeys } as ResolvedConfig;
}
