import { describe, expect, it } from 'vitest';
import { webhookOutboxEntry } from './webhook-outbox.js';

const ENTRY = {
  key: 'siem\nmsg_1',
  messageId: 'msg_1',
  endpoint: 'siem',
  event: 'high-confidence-threat',
  body: '{"type":"high-confidence-threat"}',
  createdAt: 1_767_225_600_000,
  attempts: 0,
  nextAttemptAt: 1_767_225_600_000,
};

describe('webhookOutboxEntry', () => {
  it('takes a delivery, with or without lastError, keeping only the contract fields', () => {
    expect(webhookOutboxEntry(ENTRY)).toEqual(ENTRY);
    expect(webhookOutboxEntry({ ...ENTRY, attempts: 2, lastError: 'HTTP 503', _id: 'x', outbox: 'webhooks' })).toEqual({
      ...ENTRY,
      attempts: 2,
      lastError: 'HTTP 503',
    });
  });

  it.each([
    ['not an object', 'siem\nmsg_1'],
    ['null', null],
    ['a field missing', { ...ENTRY, body: undefined }],
    ['a string field of another type', { ...ENTRY, endpoint: 7 }],
    ['a time that is not a number', { ...ENTRY, createdAt: '2026-01-01' }],
    ['a time that is not finite', { ...ENTRY, nextAttemptAt: Number.POSITIVE_INFINITY }],
    ['a count that is not whole', { ...ENTRY, attempts: 1.5 }],
    ['a lastError that is not text', { ...ENTRY, lastError: { status: 503 } }],
  ])('refuses %s', (_what, value) => {
    expect(webhookOutboxEntry(value)).toBeUndefined();
  });
});
