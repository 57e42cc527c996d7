// The collections `store` and `query` take, and a record of a collection other than threats as it is stored.
import { ValidationError } from '@threatlib/core';
import { ObjectId } from 'mongodb';
import { ttlProblem } from '../contract/record-ttl.js';
import { EXPIRY_FIELD } from './expiry.js';
import { storableRecord } from './stored-record.js';

/** The keys `store` and `query` accept: the documented collections (alerts go through `alerts`). */
const RECORD_COLLECTIONS = ['threats', 'campaigns', 'indicators'] as const;
export type RecordCollection = (typeof RECORD_COLLECTIONS)[number];

/** `collection` when it is one of the record collections. */
export function recordCollection(collection: unknown): RecordCollection {
  if (typeof collection === 'string' && (RECORD_COLLECTIONS as readonly string[]).includes(collection)) {
    return collection as RecordCollection;
  }
  throw new ValidationError('collection', [
    {
      path: '(root)',
      message: `expected one of ${RECORD_COLLECTIONS.join(', ')} (the keys of "collections"), got ${JSON.stringify(collection) ?? String(collection)}`,
    },
  ]);
}

/** A record of a collection other than threats: plain data; with `ttl` it expires `ttl` s after `scanDate` (or now). */
export function genericDocument(record: unknown, now: number): Record<string, unknown> & { _id: string } {
  const document = storableRecord(record, 'record');
  const { id, ttl } = document;
  if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(id))) {
    throw new ValidationError('record', [
      { path: 'id', message: 'expected 1 to 128 letters, digits, ".", "_", ":" or "-"' },
    ]);
  }
  if (document[EXPIRY_FIELD] !== undefined) {
    throw new ValidationError('record', [
      { path: EXPIRY_FIELD, message: 'is set by the store, from scanDate and ttl' },
    ]);
  }
  delete document.id;
  const out: Record<string, unknown> & { _id: string } = { ...document, _id: (id as string | undefined) ?? newId() };
  if (ttl !== undefined) {
    const ttlIssue = ttlProblem(ttl);
    if (ttlIssue !== undefined) throw new ValidationError('record', [{ path: 'ttl', message: ttlIssue }]);
    const from = document.scanDate instanceof Date ? document.scanDate.getTime() : now;
    out[EXPIRY_FIELD] = new Date(from + (ttl as number) * 1000);
  }
  return out;
}

function newId(): string {
  return new ObjectId().toHexString();
}
