// The security schemes the OpenAPI document lists, from the authentication the server and its clients configure.

import type { ThreatClient } from '@threatlib/core';
import type { ServerAuthentication } from '../auth/authenticator.js';

/**
 * `bearer` when the server takes bearer tokens or a client takes JWTs or OAuth 2.0 tokens, `basic` when a client takes
 * a user's password.
 */
export function documentSecurity(
  server: ServerAuthentication | undefined,
  clients: readonly ThreatClient[],
): Array<'bearer' | 'basic'> {
  return [
    ...(server?.type === 'bearer' ||
    clients.some((client) => ['jwt', 'oauth2'].includes(client.config.security.authentication?.type ?? ''))
      ? (['bearer'] as const)
      : []),
    ...(clients.some((client) => client.config.security.authentication?.type === 'basic') ? (['basic'] as const) : []),
  ];
}
