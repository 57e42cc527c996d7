import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { parseSearchIndexOptions } from './search-index-options.js';

function problems(options: unknown): string[] {
  try {
    parseSearchIndexOptions(options, 'integrations.storage');
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('SearchIndexStorage options', () => {
  it('takes the documented {node, auth, indices} and fills in the rest', () => {
    expect(
      parseSearchIndexOptions({
        node: 'http://localhost:9200',
        auth: { username: 'elastic', password: 'secret' },
        indices: { threats: 'threat-intel', campaigns: 'campaigns' },
      }),
    ).toEqual({
      node: 'http://localhost:9200',
      auth: { username: 'elastic', password: 'secret' },
      indices: { threats: 'threat-intel', campaigns: 'campaigns', indicators: 'indicators', alerts: 'alerts' },
      retentionDays: 90,
      sweepIntervalMs: 3_600_000,
      batchSize: 1_000,
      flushBytes: 5_000_000,
      flushIntervalMs: 100,
      concurrency: 2,
      retries: 3,
      retryDelayMs: 1_000,
      maxQueued: 100_000,
      maxResults: 1_000,
      requestTimeoutMs: 30_000,
    });
  });

  it('names each invalid option under its path, and never echoes a password', () => {
    const found = problems({
      node: 'http://elastic:hunter2-secret@localhost:9200',
      auth: { username: 'elastic' },
      indices: { threats: 'Threats*', campaigns: 'threats' },
      retentionDays: 0,
      colour: 'blue',
    });
    expect(found.map((p) => p.split(':')[0])).toEqual([
      'integrations.storage.node',
      'integrations.storage.auth',
      'integrations.storage.indices.threats',
      'integrations.storage.retentionDays',
      'integrations.storage.colour',
    ]);
    expect(found.join('\n')).not.toContain('hunter2-secret');
    expect(found[0]).toMatch(/must not hold credentials/);
  });

  it('refuses index names that would share daily indices or templates', () => {
    expect(problems({ node: 'http://h:9200', indices: { threats: 'intel', campaigns: 'intel' } })).toEqual([
      'integrations.storage.indices.campaigns: the same name as indices.threats',
    ]);
    expect(problems({ node: 'http://h:9200', indices: { threats: 'intel', campaigns: 'intel-campaigns' } })).toEqual([
      'integrations.storage.indices.campaigns: starts with "intel-", where indices.threats keeps its daily indices',
    ]);
    expect(problems({ node: 'ftp://h:21' })[0]).toMatch(/^integrations\.storage\.node: expected an http/);
  });
});
