import {
  BadRequestException,
  CreateThreatIntelSetCommand,
  DeleteThreatIntelSetCommand,
  GetThreatIntelSetCommand,
  GuardDutyClient,
  GuardDutyServiceException,
  ListDetectorsCommand,
  ListThreatIntelSetsCommand,
  paginateListThreatIntelSets,
  type ThreatIntelSetFormat,
  UpdateThreatIntelSetCommand,
} from '@aws-sdk/client-guardduty';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningGuardDutyEmulator, startGuardDutyEmulator, THREAT_INTEL_SET_LIMIT } from './guardduty.js';

let emulator: RunningGuardDutyEmulator;
let client: GuardDutyClient;

function clientWith(overrides: Partial<ConstructorParameters<typeof GuardDutyClient>[0]> = {}): GuardDutyClient {
  return new GuardDutyClient({
    region: emulator.region,
    endpoint: emulator.url,
    credentials: emulator.credentials,
    maxAttempts: 1,
    ...overrides,
  });
}

async function rejection(promise: Promise<unknown>): Promise<GuardDutyServiceException> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GuardDutyServiceException);
  return error as GuardDutyServiceException;
}

function create(name: string, extra: Partial<{ format: string; location: string; ClientToken: string }> = {}) {
  return client.send(
    new CreateThreatIntelSetCommand({
      DetectorId: emulator.detectorId,
      Name: name,
      Format: (extra.format ?? 'TXT') as ThreatIntelSetFormat,
      Location: extra.location ?? `https://s3.amazonaws.com/threatlib-test/${name}.txt`,
      Activate: true,
      ...(extra.ClientToken ? { ClientToken: extra.ClientToken } : {}),
    }),
  );
}

beforeAll(async () => {
  emulator = await startGuardDutyEmulator();
  client = clientWith();
});

afterAll(async () => {
  client.destroy();
  await emulator.close();
});

beforeEach(() => emulator.reset());

describe('GuardDuty emulator, spoken to by @aws-sdk/client-guardduty', () => {
  it('lists its detector, and creates, reads, lists, updates and deletes a threat-intel set', async () => {
    const detectors = await client.send(new ListDetectorsCommand({}));
    expect(detectors.DetectorIds).toEqual([emulator.detectorId]);

    const created = await create('threatlib-iocs');
    expect(created.ThreatIntelSetId).toMatch(/^[0-9a-f]{32}$/);
    const id = created.ThreatIntelSetId as string;

    const got = await client.send(
      new GetThreatIntelSetCommand({ DetectorId: emulator.detectorId, ThreatIntelSetId: id }),
    );
    expect(got).toMatchObject({
      Name: 'threatlib-iocs',
      Format: 'TXT',
      Location: 'https://s3.amazonaws.com/threatlib-test/threatlib-iocs.txt',
      Status: 'ACTIVE',
    });

    const listed = await client.send(new ListThreatIntelSetsCommand({ DetectorId: emulator.detectorId }));
    expect(listed.ThreatIntelSetIds).toEqual([id]);

    await client.send(
      new UpdateThreatIntelSetCommand({
        DetectorId: emulator.detectorId,
        ThreatIntelSetId: id,
        Location: 'https://s3.amazonaws.com/threatlib-test/v2.txt',
        Activate: false,
      }),
    );
    expect(emulator.guardDuty.threatIntelSets()).toMatchObject([
      { location: 'https://s3.amazonaws.com/threatlib-test/v2.txt', status: 'INACTIVE', updates: 1 },
    ]);

    await client.send(new DeleteThreatIntelSetCommand({ DetectorId: emulator.detectorId, ThreatIntelSetId: id }));
    expect(emulator.guardDuty.threatIntelSets()).toEqual([]);
  });

  it('sends the rest-json wire format of the service model: paths, lower-case JSON fields', async () => {
    await create('wire');
    const post = emulator.requests.find((r) => r.method === 'POST');
    expect(post?.path).toBe(`/detector/${emulator.detectorId}/threatintelset`);
    expect(JSON.parse(post?.body ?? '{}')).toMatchObject({
      name: 'wire',
      format: 'TXT',
      location: 'https://s3.amazonaws.com/threatlib-test/wire.txt',
      activate: true,
    });
  });

  it('pages ListThreatIntelSets by maxResults and nextToken', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await create(name);
    const ids: string[] = [];
    for await (const page of paginateListThreatIntelSets(
      { client, pageSize: 2 },
      { DetectorId: emulator.detectorId },
    )) {
      expect(page.ThreatIntelSetIds?.length).toBeLessThanOrEqual(2);
      ids.push(...(page.ThreatIntelSetIds ?? []));
    }
    expect(ids).toEqual(emulator.guardDuty.threatIntelSets().map((set) => set.threatIntelSetId));
    expect(ids).toHaveLength(5);
  });

  it(`refuses a set beyond the quota of ${THREAT_INTEL_SET_LIMIT} per detector`, async () => {
    for (let i = 0; i < THREAT_INTEL_SET_LIMIT; i++) await create(`list-${i}`);
    const error = await rejection(create('one-too-many'));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toMatch(/cannot create more than 6 ThreatIntelSets/);
    expect(emulator.guardDuty.threatIntelSets()).toHaveLength(THREAT_INTEL_SET_LIMIT);
  });

  it('refuses a second set with the same name, but answers a retried create (same clientToken) with the first set', async () => {
    const first = await create('same', { ClientToken: 'token-1' });
    const retried = await create('same', { ClientToken: 'token-1' });
    expect(retried.ThreatIntelSetId).toBe(first.ThreatIntelSetId);
    const error = await rejection(create('same', { ClientToken: 'token-2' }));
    expect(error.name).toBe('BadRequestException');
    expect(error.message).toMatch(/name same already exists/);
    expect(emulator.guardDuty.threatIntelSets()).toHaveLength(1);
  });

  it.each([
    ['a format outside the enum', { format: 'CSV' }, /format must be one of TXT, STIX, OTX_CSV/],
    ['a name of 301 characters', { name: 'n'.repeat(301) }, /name must be 1 to 300 characters long, got 301/],
    ['an empty name', { name: '' }, /name must be 1 to 300 characters long, got 0/],
    [
      'a location of 301 characters',
      { location: `https://s3.amazonaws.com/${'k'.repeat(276)}` },
      /location must be 1 to 300/,
    ],
  ])('answers BadRequestException to %s', async (_what, change, message) => {
    const { name = 'valid', ...rest } = change as { name?: string; format?: string; location?: string };
    const error = await rejection(create(name, rest));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toMatch(message);
    expect(emulator.guardDuty.threatIntelSets()).toEqual([]);
  });

  it('answers BadRequestException for a detector the account does not own, and for an unknown set', async () => {
    const error = await rejection(client.send(new ListThreatIntelSetsCommand({ DetectorId: 'f'.repeat(32) })));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.message).toBe(
      'The request is rejected because the input detectorId is not owned by the current account.',
    );
    expect((error as BadRequestException).Type).toBe('InvalidInputException');
    const unknown = await rejection(
      client.send(new GetThreatIntelSetCommand({ DetectorId: emulator.detectorId, ThreatIntelSetId: 'nope' })),
    );
    expect(unknown).toBeInstanceOf(BadRequestException);
  });

  it('answers BadRequestException to a body that is not JSON, whatever the client sent', async () => {
    const broken = clientWith();
    // Replaces the serialised body before the request is signed, so the signature is valid and the body is checked.
    broken.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: unknown; headers: Record<string, string> };
        request.body = '{"name": ';
        request.headers['content-length'] = String(Buffer.byteLength(request.body as string));
        return next(args);
      },
      { step: 'build' },
    );
    const error = await rejection(
      broken.send(
        new CreateThreatIntelSetCommand({
          DetectorId: emulator.detectorId,
          Name: 'x',
          Format: 'TXT',
          Location: 'https://s3.amazonaws.com/b/k',
          Activate: true,
        }),
      ),
    );
    expect(error.name).toBe('BadRequestException');
    expect(error.message).toMatch(/not a JSON object/);
    broken.destroy();
  });
});

describe('GuardDuty emulator: Signature Version 4', () => {
  it('refuses a request without Authorization: MissingAuthenticationTokenException', async () => {
    const response = await fetch(`${emulator.url}/detector`);
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
    expect(await response.json()).toMatchObject({ message: 'Missing Authentication Token' });
  });

  it('refuses an unknown access key id: UnrecognizedClientException', async () => {
    const stranger = clientWith({ credentials: { accessKeyId: 'AKIASTRANGER', secretAccessKey: 'whatever' } });
    const error = await rejection(stranger.send(new ListDetectorsCommand({})));
    expect(error.name).toBe('UnrecognizedClientException');
    expect(error.$metadata.httpStatusCode).toBe(403);
    expect(error.message).toBe('The security token included in the request is invalid.');
    stranger.destroy();
  });

  it('refuses a wrong secret key: InvalidSignatureException, signature mismatch', async () => {
    const wrong = clientWith({
      credentials: { accessKeyId: emulator.credentials.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    const error = await rejection(wrong.send(new ListDetectorsCommand({})));
    expect(error.name).toBe('InvalidSignatureException');
    expect(error.message).toMatch(/^The request signature we calculated does not match/);
    wrong.destroy();
  });

  it('refuses a credential scoped to another region or another service', async () => {
    const elsewhere = clientWith({ region: 'eu-west-1' });
    const error = await rejection(elsewhere.send(new ListDetectorsCommand({})));
    expect(error.name).toBe('InvalidSignatureException');
    expect(error.message).toMatch(/scoped to a valid region/);
    elsewhere.destroy();

    // AWS checks the scope before the signature: a header scoped to S3 is refused for its scope.
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const response = await fetch(`${emulator.url}/detector`, {
      headers: {
        'x-amz-date': amzDate,
        authorization: `AWS4-HMAC-SHA256 Credential=${emulator.credentials.accessKeyId}/${amzDate.slice(0, 8)}/${emulator.region}/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('InvalidSignatureException');
    expect(await response.json()).toMatchObject({
      message: "Credential should be scoped to correct service: 'guardduty'. ",
    });
  });

  it('refuses a signature older than 15 minutes: InvalidSignatureException, signature expired', async () => {
    const late = await startGuardDutyEmulator({ now: () => Date.now() + 16 * 60 * 1000 });
    const lateClient = new GuardDutyClient({
      region: late.region,
      endpoint: late.url,
      credentials: late.credentials,
      maxAttempts: 1,
      // The SDK corrects its clock from a skew error's Date header; without one it cannot, and reports the refusal.
    });
    const error = await rejection(lateClient.send(new ListDetectorsCommand({})));
    expect(error.name).toBe('InvalidSignatureException');
    expect(error.message).toMatch(/^Signature expired/);
    lateClient.destroy();
    await late.close();
  });
});
