import type * as GuardDuty from '@aws-sdk/client-guardduty';
import type * as S3 from '@aws-sdk/client-s3';
import { loadOptionalPeers } from '@threatlib/core/integration';

/** `@aws-sdk/client-guardduty`, an optional peer dependency of `@threatlib/cloud` (AWS only). */
export type GuardDutySdk = typeof GuardDuty;
/** `@aws-sdk/client-s3`, an optional peer dependency of `@threatlib/cloud` (AWS only). */
export type S3Sdk = typeof S3;

const NEEDED_FOR = 'CloudIntegration (AWS GuardDuty and S3)';

/**
 * Loads the AWS SDK clients `CloudIntegration` uses (never at import of the package, so an Azure-only application
 * installs no AWS SDK). `path` is where the integration's options sit (`integrations.cloud`), for the error.
 *
 * @throws {ConfigurationError} naming every missing package and the command that installs them.
 */
export function loadAwsSdk(path: string): { guardDuty: GuardDutySdk; s3: S3Sdk } {
  const [guardDuty, s3] = loadOptionalPeers<[GuardDutySdk, S3Sdk]>(
    ['@aws-sdk/client-guardduty', '@aws-sdk/client-s3'],
    {
      from: import.meta.url,
      path,
      neededFor: NEEDED_FOR,
    },
  );
  return { guardDuty, s3 };
}

/** `@aws-sdk/client-guardduty` alone, for a `GuardDutyApi` (its commands). */
export function loadGuardDutySdk(): GuardDutySdk {
  const [guardDuty] = loadOptionalPeers<[GuardDutySdk]>(['@aws-sdk/client-guardduty'], {
    from: import.meta.url,
    path: '',
    neededFor: NEEDED_FOR,
  });
  return guardDuty;
}

/** `@aws-sdk/client-s3` alone, for an `S3Api` (its commands). */
export function loadS3Sdk(): S3Sdk {
  const [s3] = loadOptionalPeers<[S3Sdk]>(['@aws-sdk/client-s3'], {
    from: import.meta.url,
    path: '',
    neededFor: NEEDED_FOR,
  });
  return s3;
}
