import { ConfigurationError } from '@threatlib/core';
import { recordIssues } from '@threatlib/core/integration';
import { z } from 'zod';

const endpoint = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://guardduty.us-east-1.amazonaws.com' })
  .optional();

/** The AWS credentials `CloudIntegration` signs with: an access key, with a session token when it is temporary. */
const AwsCredentialsSchema = z.strictObject({
  accessKeyId: z.string().min(1, { error: 'required: the access key id (AKIA...)' }).max(128),
  secretAccessKey: z.string().min(1, { error: 'required: the secret access key' }).max(128),
  /** For temporary credentials (STS). */
  sessionToken: z.string().min(1).optional(),
});

/** `{accessKeyId, secretAccessKey, sessionToken?}`. */
export type AwsCredentials = z.input<typeof AwsCredentialsSchema>;

/**
 * The options of `CloudIntegration`: `region` and `credentials` as documented, plus where to reach the services (for
 * a test server or a VPC endpoint) and which GuardDuty detector to use.
 */
export const CloudIntegrationOptionsSchema = z.strictObject({
  /** The AWS Region of the detector and the bucket (`us-east-1`). */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { error: 'expected an AWS Region such as us-east-1' }),
  /** Absent: the SDK's default chain (environment, shared config, instance or container role). */
  credentials: AwsCredentialsSchema.optional(),
  /** One endpoint for both services (moto serves every service on one port). */
  endpoint,
  /** S3's endpoint, instead of `endpoint`. */
  s3Endpoint: endpoint,
  /** GuardDuty's endpoint, instead of `endpoint`. */
  guardDutyEndpoint: endpoint,
  /** Path-style S3 URLs (`<endpoint>/<bucket>/<key>`), which moto and most S3-compatible servers need. */
  forcePathStyle: z.boolean().default(false),
  /** The GuardDuty detector; absent: the Region's detector, found with `ListDetectors`. */
  detectorId: z.string().min(1).max(300).optional(),
  /** Attempts per AWS call (the SDK retries throttling, 5xx and network errors). Default 3. */
  maxAttempts: z.int().min(1).max(10).default(3),
  /** Ms one attempt may take before it is abandoned. Default 30000. */
  requestTimeout: z.int().min(100).max(600_000).default(30_000),
});

/** What users write for `new CloudIntegration(options)`. */
export type CloudIntegrationOptions = z.input<typeof CloudIntegrationOptionsSchema>;

/** The options once validated, defaults applied. */
export type ResolvedCloudIntegrationOptions = z.output<typeof CloudIntegrationOptionsSchema>;

/**
 * Validates `options` against `schema`.
 *
 * @throws {ConfigurationError} `Configuration invalid: <where>.<option>: <reason>` for every problem; never quotes a
 *   credential.
 */
export function parseOptions<S extends z.ZodType>(schema: S, options: unknown, where: string): z.output<S> {
  const result = schema.safeParse(options ?? {});
  if (result.success) return result.data;
  throw new ConfigurationError(
    recordIssues(result.error.issues).map((issue) => ({
      path: issue.path === '(root)' ? where : where ? `${where}.${issue.path}` : issue.path,
      message: issue.message,
    })),
  );
}
