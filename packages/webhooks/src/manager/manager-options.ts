import { ConfigurationError } from '@threatlib/core';
import { recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';
import { IncomingOptionsSchema } from '../incoming/incoming-options.js';
import { OutgoingOptionsSchema } from '../outgoing/outgoing-webhooks.js';

/**
 * The options of `new WebhookManager(...)`: the documented `server: {port, path}` and `authentication: {type:
 * 'hmac', secret}`, with `server.host`, `authentication.scheme` and `toleranceSeconds`, `limits`, and `delivery`
 * (the outgoing side's options).
 */
export const WebhookManagerOptionsSchema = z
  .strictObject({
    ...IncomingOptionsSchema.shape,
    delivery: OutgoingOptionsSchema.prefault({}),
  })
  .superRefine((options, context) => {
    if (options.server.port !== undefined && options.authentication === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['authentication'],
        message: 'required to receive webhooks on server.port: {type: "hmac", secret}',
      });
    }
  });

/** What users write for {@link WebhookManagerOptionsSchema}. */
export type WebhookManagerOptions = z.input<typeof WebhookManagerOptionsSchema>;
/** {@link WebhookManagerOptions} with every default filled in. */
export type ResolvedWebhookManagerOptions = z.output<typeof WebhookManagerOptionsSchema>;

/**
 * Validates the manager's options.
 *
 * @throws {ConfigurationError} `Configuration invalid: <optionsPath>.<path>: ...` naming every problem (a secret is
 *   never quoted).
 */
export function parseManagerOptions(options: unknown, optionsPath: string): ResolvedWebhookManagerOptions {
  const result = WebhookManagerOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: issue.path === '(root)' ? optionsPath : `${optionsPath}.${issue.path}`,
      message: issue.message,
    })),
  );
}
