import { describe, expect, it } from 'vitest';
import { itemReason, readBulkItems } from './bulk-answer.js';

describe('reading a bulk answer', () => {
  it('sorts items into created, already there (409 on create) and failures, retryable only for 429 and 503', () => {
    const outcome = readBulkItems(
      [
        { create: { status: 201, _id: 'a' } },
        { create: { status: 409, _id: 'b', error: { type: 'version_conflict_engine_exception', reason: 'exists' } } },
        { create: { status: 429, _id: 'c', error: { type: 'es_rejected_execution_exception', reason: 'queue full' } } },
        { create: { status: 503, _id: 'd', error: { type: 'unavailable_shards_exception', reason: 'primary' } } },
        {
          create: {
            status: 400,
            _id: 'e',
            error: {
              type: 'document_parsing_exception',
              reason: '[1:2] failed to parse field [x] of type [ip]',
              caused_by: { type: 'illegal_argument_exception', reason: "'y' is not an IP string literal." },
            },
          },
        },
        { create: { status: 409, _id: 'f', error: { type: 'other_conflict' } } },
      ],
      6,
    );
    expect(outcome.created).toBe(1);
    expect(outcome.duplicates).toBe(1);
    expect(outcome.failures.map((f) => [f.position, f.status, f.retryable])).toEqual([
      [2, 429, true],
      [3, 503, true],
      [4, 400, false],
      [5, 409, false],
    ]);
    expect(outcome.failures[2]?.reason).toBe(
      "document_parsing_exception: [1:2] failed to parse field [x] of type [ip] (caused by illegal_argument_exception: 'y' is not an IP string literal.)",
    );
  });

  it('refuses an answer without one item per action', () => {
    expect(() => readBulkItems([{ create: { status: 201 } }], 2)).toThrow('the bulk answer has 1 items for 2 actions');
  });

  it('says when Elasticsearch gave no reason', () => {
    expect(itemReason(undefined)).toBe('no reason given');
    expect(itemReason({ type: 'x' })).toBe('x');
  });
});
