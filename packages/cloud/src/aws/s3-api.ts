import type { PutObjectCommandInput, PutObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { ValidationError } from '@threatlib/core';
import { INSPECT_CUSTOM, type InspectFunction, type InspectOptions, inspectView } from '@threatlib/core/integration';
import { awsCall } from './aws-call.js';
import { loadS3Sdk, type S3Sdk } from './aws-sdk.js';

/** The documented object-store put, `{Bucket, Key, Body}`, with any other field of S3's `PutObject`. */
export type ObjectPut = PutObjectCommandInput & { Bucket: string; Key: string; Body: PutObjectCommandInput['Body'] };

/**
 * S3, on `@aws-sdk/client-s3` (`cloud.s3`). An AWS failure rejects with a `CloudError` naming the operation and
 * AWS's reason (`S3 PutObject failed: NoSuchBucket (HTTP 404): The specified bucket does not exist`). `client` is
 * the SDK client, for the rest of S3's API.
 */
export class S3Api {
  readonly #client: S3Client;
  readonly #secrets: readonly string[];
  /**
   * The SDK's commands, loaded with the first API made (the package is an optional peer dependency, loaded on use).
   */
  readonly #sdk: S3Sdk = loadS3Sdk();

  constructor(client: S3Client, options: { secrets: readonly string[] }) {
    this.#client = client;
    this.#secrets = options.secrets;
  }

  /**
   * The SDK client behind it (its region, endpoint and credentials are the integration's). It holds the credentials:
   * it is not part of what this object shows (`toJSON`, `util.inspect`), so do not log it.
   */
  get client(): S3Client {
    return this.#client;
  }

  /** What `JSON.stringify` writes of it: the service; never a credential. */
  toJSON(): { service: 's3' } {
    return { service: 's3' };
  }

  /** What `util.inspect` and `console.log` show of it: {@link toJSON}'s view. */
  [INSPECT_CUSTOM](depth: number, options: InspectOptions, inspect: InspectFunction): string {
    return inspectView('S3Api', this.toJSON(), depth, options, inspect);
  }

  /**
   * Writes an object (`PutObject`); resolves with S3's answer (`ETag`, `VersionId` when the bucket is versioned).
   *
   * @example
   * ```ts
   * await cloud.s3.putObject({ Bucket: 'my-bucket', Key: 'threats.txt', Body: '198.51.100.7\n' });
   * ```
   *
   * @throws {ValidationError} when `Bucket` or `Key` is missing or empty, before anything is sent.
   * @throws {CloudError} `S3 PutObject failed: <AWS code> (HTTP <status>): <AWS message>`.
   */
  async putObject(put: ObjectPut): Promise<PutObjectCommandOutput> {
    const issues: { path: string; message: string }[] = (['Bucket', 'Key'] as const)
      .filter((field) => typeof put?.[field] !== 'string' || put[field] === '')
      .map((field) => ({ path: field, message: 'required: a non-empty string' }));
    if (put?.Body === undefined || put.Body === null) issues.push({ path: 'Body', message: 'required: the content' });
    if (issues.length > 0) throw new ValidationError('object put', issues);
    return awsCall('s3', 'PutObject', this.#secrets, () => this.client.send(new this.#sdk.PutObjectCommand(put)));
  }
}
