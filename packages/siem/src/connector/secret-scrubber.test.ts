import { describe, expect, it } from 'vitest';
import { SecretScrubber } from './secret-scrubber.js';

describe('SecretScrubber', () => {
  it('removes a secret as given, URL-encoded and in base64, including ones added later', () => {
    const scrubber = new SecretScrubber(['s3cret/+=pw', undefined]);
    const base64 = Buffer.from('s3cret/+=pw').toString('base64');
    expect(scrubber.scrub(`a s3cret/+=pw b ${encodeURIComponent('s3cret/+=pw')} c ${base64}`)).toBe(
      'a [REDACTED] b [REDACTED] c [REDACTED]',
    );
    scrubber.secrets.add('derived-access-token');
    expect(scrubber.scrub('Bearer derived-access-token')).toBe('Bearer [REDACTED]');
  });

  it('leaves secrets too short to scrub without wrecking the text', () => {
    expect(new SecretScrubber(['ab']).scrub('a cab')).toBe('a cab');
  });
});
