import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, it } from 'vitest';

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

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}

const reachable = await portOpen(PORT);

/**
 * `describe` for tests that need moto. When it is unreachable they are skipped, with the reason as the skipped
 * test's name, if `THREATLIB_E2E` is unset; they fail, loudly, if it is set.
 */
export function describeWithMoto(title: string, body: () => void): void {
  describe(title, () => {
    if (!reachable && !process.env.THREATLIB_E2E) {
      it.skip(
        `needs moto at ${MOTO_URL} (start it with: ./dev services up moto; THREATLIB_E2E=1 makes this fail instead)`,
      );
      return;
    }
    beforeAll(() => {
      if (!reachable) {
        throw new Error(`THREATLIB_E2E is set but moto at ${MOTO_URL} does not answer; run: ./dev services up moto`);
      }
    });
    body();
  });
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
