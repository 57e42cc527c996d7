import { CloudError } from '../errors/cloud-error.js';

/** The AWS services `CloudIntegration` calls, and how messages name them. */
export type AwsService = 'guardduty' | 's3';

const SERVICE_NAMES: Record<AwsService, string> = { guardduty: 'GuardDuty', s3: 'S3' };

/** The fields of an AWS SDK v3 error that say what AWS answered. */
interface SdkErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  $fault?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * Runs one AWS SDK call and turns its failure into a {@link CloudError} naming the service and operation with AWS's
 * reason: `GuardDuty CreateThreatIntelSet failed: BadRequestException (HTTP 400): The request is rejected because...`,
 * or, when AWS was not reached, the network's reason. `secrets` (the secret key, a session token) are scrubbed from
 * the message should anything quote them.
 */
export async function awsCall<T>(
  service: AwsService,
  operation: string,
  secrets: readonly string[],
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw cloudErrorFrom(service, operation, error, secrets);
  }
}

/** The {@link CloudError} for an error an AWS SDK call threw. */
function cloudErrorFrom(
  service: AwsService,
  operation: string,
  error: unknown,
  secrets: readonly string[],
): CloudError {
  if (CloudError.isInstance(error)) return error;
  const fields = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorFields;
  const status = typeof fields.$metadata?.httpStatusCode === 'number' ? fields.$metadata.httpStatusCode : undefined;
  const rawMessage = typeof fields.message === 'string' && fields.message !== '' ? fields.message : String(error);
  const label = `${SERVICE_NAMES[service]} ${operation} failed`;
  let message: string;
  let serviceCode: string | undefined;
  if (status !== undefined) {
    // AWS answered: the SDK names the error by AWS's code (`AccessDenied`, `BadRequestException`).
    serviceCode = typeof fields.name === 'string' ? fields.name : undefined;
    message = `${label}: ${serviceCode ?? 'error'} (HTTP ${status}): ${rawMessage}`;
  } else {
    serviceCode = typeof fields.code === 'string' ? fields.code : undefined;
    message = `${label}: AWS was not reached: ${rawMessage}`;
  }
  const retryable =
    fields.$retryable !== undefined ||
    status === undefined ||
    status === 429 ||
    status >= 500 ||
    serviceCode === 'ThrottlingException' ||
    serviceCode === 'SlowDown';
  return new CloudError(service, operation, scrub(message, secrets), {
    ...(serviceCode === undefined ? {} : { serviceCode }),
    ...(status === undefined ? {} : { statusCode: status }),
    isRetryable: retryable,
    cause: error,
  });
}

function scrub(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret.length >= 4) scrubbed = scrubbed.split(secret).join('[REDACTED]');
  }
  return scrubbed;
}
