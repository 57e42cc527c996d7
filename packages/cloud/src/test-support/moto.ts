import { readFileSync } from 'node:fs';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeWithServices, probeService } from '@threatlib/core/testing';

const script = readFileSync(new URL('../../../../e2e/services.d/moto.sh', import.meta.url), 'utf8');
const PORT = Number(/^moto_port=(\d+)$/m.exec(script)?.[1] ?? Number.NaN);

/** moto's server of `e2e/services.d/moto.sh` (S3 path-style; it takes any credentials; Region us-east-1). */
export const MOTO_URL = `http://127.0.0.1:${PORT}`;
const MOTO_REGION = 'us-east-1';
/** Any key works with moto; these are AWS's documentation example key. */
const MOTO_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

const moto = await probeService({ name: 'moto', port: PORT });

/**
 * `describe` for tests that need moto. When it is unreachable they are skipped, with the reason as the skipped
 * test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithMoto(title: string, body: () => void): void {
  describeWithServices([moto], title, body);
}

/** An S3 client on moto, for setting up buckets and reading back what the code under test wrote. */
export function motoS3(): S3Client {
  return new S3Client({ region: MOTO_REGION, endpoint: MOTO_URL, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
}

let buckets = 0;

/** Creates a bucket no other test, run or process uses, and returns its name. */
export async function freshBucket(s3: S3Client, label: string): Promise<string> {
  buckets += 1;
  const name = `tl-${label}-${process.pid}-${Date.now().toString(36)}-${buckets}`.toLowerCase().slice(0, 63);
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  return name;
}

/** The text of an object on moto. */
export async function readObject(s3: S3Client, bucket: string, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString('utf8')) ?? '';
}
